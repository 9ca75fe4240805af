// A JSON-object line of a converter's input, or the reason it is skipped (what most line formats start with).
import type {InputLine} from '../formats/json/line-reader.js'
import type {InputContext} from './types.js'
import {JsonDepthError, JsonSyntaxError, parseJson} from '../formats/json/parse.js'
import type {JsonObject} from '../formats/json/json-float.js'

/** Why a line cannot be used: a reason code and a message (the framework adds file, line and preview). */
export interface LineProblem {
  skip: string
  message: string
}

/** Parses a line into an object, or says why not. */
export function parseObjectLine(text: string): JsonObject | LineProblem {
  let row: unknown
  try {
    row = parseJson(text)
  } catch (err) {
    // a too-deep line is well-formed as far as it was read, but cannot be used: a reason of its own
    if (err instanceof JsonDepthError)
      return {skip: 'too_deep', message: `${err.reason} (at column ${err.column})`}
    if (err instanceof JsonSyntaxError)
      return {skip: 'invalid_json', message: `invalid JSON: ${err.reason} at column ${err.column}`}
    throw err
  }
  if (!(row instanceof Map)) return {skip: 'not_an_object', message: 'the line is not a JSON object'}
  return row
}

/** Parses a line into an object, or reports it as skipped. */
export function parseRow(line: InputLine, ctx: InputContext): JsonObject | undefined {
  const row = parseObjectLine(line.text)
  if (row instanceof Map) return row
  ctx.skip(line, row.skip, row.message)
  return undefined
}
