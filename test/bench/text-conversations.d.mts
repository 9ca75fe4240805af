// Types of text-conversations.mjs for the tests.
export declare function conversation(rand: () => number): {messages: unknown[]; tools?: unknown[]}
export declare function conversationLines(count: number, seed?: number): string
