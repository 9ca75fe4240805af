import {Flags} from '@oclif/core'

/**
 * `--converter-dir` and `--converter-module`: where converters beyond the built-in ones and installed plugins come
 * from (every command that discovers converters takes them).
 */
export function converterSourceFlags(helpGroup?: string) {
  return {
    'converter-dir': Flags.string({
      summary: 'A directory of extra converter modules (repeatable).',
      multiple: true,
      helpGroup,
    }),
    'converter-module': Flags.string({
      summary: 'An extra converter module: a file or a package (repeatable).',
      multiple: true,
      helpGroup,
    }),
  }
}

/** `--converter-config-json` and `--converter-config-file`: the converter config (docs/convert.md §2.3). */
export function converterConfigFlags(helpGroup?: string) {
  return {
    'converter-config-json': Flags.string({
      summary: "Settings for the converter as a JSON object (they win over the file's).",
      helpGroup,
    }),
    'converter-config-file': Flags.string({
      summary: 'Settings for the converter from a JSON file.',
      helpGroup,
    }),
  }
}
