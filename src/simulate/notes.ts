import type {Notice} from './config.js'

/** The notices and warnings of a run, in order (summary.json `notices`). */
export class Notes {
  constructor(readonly list: Notice[] = []) {}
  add(code: string, message: string, level: 'notice' | 'warning' = 'notice'): void {
    this.list.push({code, level, message})
  }
}
