// Naive "%Y-%m-%d %H:%M:%S.%f" times of the text pipeline, interpreted in a time zone (docs/convert.md §8.5).

const TIME =
  /^(\d{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])\s+(2[0-3]|[01]\d|\d):([0-5]\d|\d):(6[01]|[0-5]\d|\d)\.(\d{1,6})$/

export interface NaiveTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  micro: number
}

/** Days in month `m` (1–12) of year `y`, proleptic Gregorian as Python's (day 0 of the next month is its last). */
function daysInMonth(y: number, m: number): number {
  const d = new Date(0)
  d.setUTCFullYear(y, m, 0)
  return d.getUTCDate()
}

/** Parses Python's `%Y-%m-%d %H:%M:%S.%f` (commas read as dots); undefined when invalid or not a real time. */
export function parseNaiveTime(text: string): NaiveTime | undefined {
  const m = TIME.exec(text.replace(/,/g, '.'))
  if (!m) return undefined
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i].trim()))
  if (year < 1 || second > 59 || day > daysInMonth(year, month)) return undefined
  return {year, month, day, hour, minute, second, micro: Number(m[7].padEnd(6, '0'))}
}

/** UTC offset in ms of `zone` ('UTC', 'local' or IANA) at an instant. */
function offsetAt(zone: string, epochMs: number): number {
  if (zone === 'UTC') return 0
  if (zone === 'local') return -new Date(epochMs).getTimezoneOffset() * 60_000
  const parts = zoneFormat(zone).formatToParts(new Date(epochMs))
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value)
  const asUtc = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour') % 24,
    get('minute'),
    get('second'),
  )
  return asUtc - Math.floor(epochMs / 1000) * 1000
}

const formats = new Map<string, Intl.DateTimeFormat>()
function zoneFormat(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formats.set(zone, f)
  }
  return f
}

/**
 * Epoch seconds of a naive wall time in `zone`. A wall time that occurs twice or not at all around a transition
 * uses the UTC offset in force just before the transition.
 */
export function epochSeconds(t: NaiveTime, zone: string): number {
  const d = new Date(0)
  d.setUTCFullYear(t.year, t.month - 1, t.day) // setUTCFullYear keeps years 1–99 as they are
  d.setUTCHours(t.hour, t.minute, t.second, 0)
  const naive = d.getTime()
  if (zone === 'UTC') return naive / 1000
  const before = offsetAt(zone, naive - 86_400_000)
  const after = offsetAt(zone, naive + 86_400_000)
  if (before === after) return (naive - before) / 1000
  const e1 = naive - before
  const e2 = naive - after
  const e1Valid = offsetAt(zone, e1) === before
  const e2Valid = offsetAt(zone, e2) === after
  return (e1Valid || !e2Valid ? e1 : e2) / 1000
}

/** `int((epoch + µs / 1e6) * 1e9)` in doubles, as the original computes it. */
export function textTimestampNs(t: NaiveTime, zone: string): bigint {
  return BigInt(Math.trunc((epochSeconds(t, zone) + t.micro / 1e6) * 1e9))
}
