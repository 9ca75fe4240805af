// `lmt/flags`: the flag builders a plugin declares its flags with (a converter's `static flags`, a replay level's
// `flags`): oclif's, the same copy lmt parses with. A separate entry because loading oclif costs ~0.1 s, which the
// worker threads that import `lmt` must not pay.
export {Flags} from '@oclif/core'
