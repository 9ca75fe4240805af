// Types of text-conversations.mjs for the tests.
export interface Dialog {
  messages: Record<string, unknown>[]
  tools?: unknown[]
}
export declare function conversation(rand: () => number, turns?: number): Dialog
export declare function sessionRequests(rand: () => number, turns: number): Dialog[]
export declare function sessionLines(sessions: number, seed?: number, concurrent?: number): string
export declare function conversationLines(count: number, seed?: number): string
