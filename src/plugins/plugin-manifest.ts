// The "lmt" field of an installed plugin's package.json, checked against schemas/plugin-manifest.schema.json: what
// fits is used, every field that does not is a warning naming the plugin (a broken manifest never stops lmt).

export interface LmtManifest {
  /** a directory of converter modules, relative to the plugin's root */
  converters?: string
  /** a directory of replay-level modules or one module */
  levels?: string
}

/** The valid fields of `plugin`'s manifest ({} when it has none). */
export async function lmtManifest(
  plugin: {name: string; pjson: unknown},
  warn: (message: string) => void,
): Promise<LmtManifest> {
  const raw = (plugin.pjson as {lmt?: unknown}).lmt
  if (raw === undefined) return {}
  // ajv is loaded only when a plugin has a manifest: otherwise it would lengthen every convert's and replay's
  // start-up
  const {validatorFor} = await import('../schemas.js')
  const validate = validatorFor('plugin-manifest.schema.json')
  if (validate(raw)) {
    const m = raw as LmtManifest
    return {converters: m.converters, levels: m.levels}
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    warn(`plugin ${plugin.name}: "lmt" in package.json must be an object; ignored`)
    return {}
  }
  const bad = new Set<string>()
  for (const e of validate.errors ?? []) {
    const field =
      e.keyword === 'additionalProperties'
        ? String((e.params as {additionalProperty: string}).additionalProperty)
        : e.instancePath.slice(1)
    if (bad.has(field)) continue
    bad.add(field)
    warn(
      e.keyword === 'additionalProperties'
        ? `plugin ${plugin.name}: "lmt.${field}" in package.json is not a known field (converters, levels); ignored`
        : `plugin ${plugin.name}: "lmt.${field}" in package.json must be a non-empty path; ignored`,
    )
  }
  const m = raw as Record<string, unknown>
  const ok = (k: string): string | undefined =>
    !bad.has(k) && typeof m[k] === 'string' ? (m[k] as string) : undefined
  return {converters: ok('converters'), levels: ok('levels')}
}
