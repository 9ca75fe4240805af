// The hit-rate CSV of each instance: its file name (escaped when the id is not a safe one) and the staged path it is
// written to until the run's outputs are committed together (docs/simulate.md §5.1).
import {join} from 'node:path'
import {tempPathBeside} from '../../util/atomic-write.js'
import {refuseNonRegularOutput} from '../../util/output-path.js'
import type {Notes} from '../config/notes.js'
import type {PendingFiles} from '../../util/pending-files.js'

// eslint-disable-next-line no-control-regex -- control characters are unsafe in file names
const UNSAFE_NAME = /[/\\:*?"<>|\u0000-\u001f\u007f]/

/** The CSV file name of an instance (escaped when unsafe, docs/simulate.md §5.1). */
export function csvFileName(id: string): {name: string; escaped: boolean} {
  if (!UNSAFE_NAME.test(id) && id !== '.' && id !== '..') return {name: `${id}_hit_rates.csv`, escaped: false}
  let out = ''
  for (const ch of id) {
    out +=
      ch === '%' || UNSAFE_NAME.test(ch)
        ? encodeURIComponent(ch).replace(/[!'()*]/g, (x) => '%' + x.charCodeAt(0).toString(16).toUpperCase())
        : ch
  }
  if (out === '.' || out === '..') out = out.replace(/\./g, '%2E')
  return {name: `${out}_hit_rates.csv`, escaped: true}
}

/** The CSV names of a run's instances, each escaped (and noted) once. */
export class CsvNames {
  private readonly names = new Map<string, string>()

  constructor(
    private readonly notes: Notes,
    private readonly pending: PendingFiles,
  ) {}

  /** the file name given to instance `id`, once its CSV was opened */
  nameOf(id: string): string | undefined {
    return this.names.get(id)
  }

  /** For a Player: the staged path of an instance's CSV in `dir`, registered with the pending files. */
  readonly stagedIn = (dir: string) => (id: string) => {
    let n = this.names.get(id)
    if (n === undefined) {
      const f = csvFileName(id)
      if (f.escaped)
        this.notes.add(
          'LMT_SIM_FILENAME_ESCAPED',
          `instance_id "${id}" was escaped to the file name ${f.name}`,
        )
      this.names.set(id, (n = f.name))
    }
    const path = join(dir, n)
    refuseNonRegularOutput(path, 'SIM_OUTPUT_FAILED')
    // the CSV's writer creates and fills this fresh temporary (or removes it); commit() renames it to the CSV
    const staged = tempPathBeside(path)
    this.pending.stage(staged, path)
    return staged
  }
}
