import {spawn, spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {settings} from '@oclif/core'
import {runCommand} from '@oclif/test'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const FIXTURES = join(ROOT, 'test', 'fixtures')
export const BIN = join(ROOT, 'bin', 'run.js')

// as bin/run.js: oclif loads lmt's compiled modules (dist/), never its TypeScript sources
settings.enableAutoTranspile = false

export interface CliResult {
  stdout: string
  stderr: string
  exitCode: number
  result?: unknown
}

/** Runs an lmt command in-process through oclif's test helper (the built commands under dist/). */
export async function lmt(args: string[]): Promise<CliResult> {
  const {stdout, stderr, error, result} = await runCommand(args, {root: ROOT})
  const exit = (error as {oclif?: {exit?: number}} | undefined)?.oclif?.exit
  return {stdout, stderr, exitCode: error ? (exit ?? 1) : 0, result}
}

/** Runs the built CLI in a child process (for signals, exit codes of the real binary, cwd-relative paths). */
export function lmtProcess(args: string[], options: {cwd?: string; env?: NodeJS.ProcessEnv} = {}): CliResult {
  const res = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: {...process.env, NO_COLOR: '1', ...options.env},
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  })
  return {stdout: res.stdout, stderr: res.stderr, exitCode: res.status ?? -1}
}

export function spawnLmt(args: string[], cwd = ROOT) {
  return spawn(process.execPath, [BIN, ...args], {cwd, env: {...process.env, NO_COLOR: '1'}})
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'lmt-test-'): {dir: string; cleanup: () => void} {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return {dir, cleanup: () => rmSync(dir, {recursive: true, force: true})}
}

/** Copies fixture files into a directory (tests run on temporary copies, never in place). */
export function copyFixtures(dir: string, sub: string, names: string[]): void {
  for (const n of names) cpSync(join(FIXTURES, sub, n), join(dir, n))
}

/** The bundled Mooncake conversation trace converted (block size 512) to `out`, through the CLI. */
export async function convertSampleMooncake(out: string): Promise<void> {
  const r = await lmt([
    'convert',
    '-q',
    '-i',
    join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl'),
    '-f',
    'mooncake',
    '-o',
    out,
  ])
  if (r.exitCode !== 0) throw new Error(`converting the sample failed: ${r.stderr}`)
}
