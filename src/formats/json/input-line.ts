/** A non-blank input line: 1-based number (blank lines counted) and its trimmed text. */
export interface InputLine {
  readonly lineNo: number
  readonly text: string
}
