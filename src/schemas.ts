import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Ajv2020, type ValidateFunction} from 'ajv/dist/2020.js'

/** The package's schemas/ directory (beside dist/ when built, beside src/ in development). */
const SCHEMAS_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../schemas' : '../../schemas', import.meta.url),
)

let ajv: Ajv2020 | undefined

/** An ajv (draft 2020-12) instance holding every schema of the package, referable by file name. */
export function schemaRegistry(): Ajv2020 {
  if (ajv) return ajv
  // a list of types (`"type": ["integer", "null"]`) is standard JSON Schema: ajv's strict mode only asks for it
  ajv = new Ajv2020({allErrors: true, allowUnionTypes: true})
  const dir = SCHEMAS_DIR
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.schema.json'))
    .sort()) {
    const schema = JSON.parse(readFileSync(join(dir, name), 'utf8'))
    ajv.addSchema(schema, name)
  }
  return ajv
}

/** The compiled validator of `schemas/<name>`. */
export function validatorFor(name: string): ValidateFunction {
  const fn = schemaRegistry().getSchema(name)
  if (!fn) throw new Error(`unknown schema ${name}`)
  return fn
}
