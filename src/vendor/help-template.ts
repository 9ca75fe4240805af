// oclif's help renders every string it prints (descriptions, flags, examples) as an EJS template, and EJS compiles
// each with `new Function`: ~200 strings for `lmt simulate --help`. scripts/bundle-oclif.mjs makes the bundle give
// back the strings that are not templates as they are, with this test.

/**
 * Whether EJS renders `text` as it is: a string in which none of EJS's delimiters (`<%` opens every tag, `%>` ends
 * every close, `<%%` and `%%>` included) occurs is one literal piece of output, unchanged.
 */
export function isPlainTemplate(text: unknown): text is string {
  return typeof text === 'string' && !text.includes('<%') && !text.includes('%>')
}
