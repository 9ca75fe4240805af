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
