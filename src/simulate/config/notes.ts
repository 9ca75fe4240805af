/** A notice or warning of a run, as summary.json and the console give it (docs/simulate.md §1.3). */
export interface Notice {
  code: string
  level: 'notice' | 'warning'
  message: string
}

/** The notices and warnings of a run, in order (summary.json `notices`). */
export class Notes {
  constructor(readonly list: Notice[] = []) {}
  add(code: string, message: string, level: 'notice' | 'warning' = 'notice'): void {
    this.list.push({code, level, message})
  }
}
