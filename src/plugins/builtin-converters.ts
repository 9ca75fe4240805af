// The flags lmt's own converters declare, for what must be known before any discovery: the flags `lmt convert
// --help` lists (a command never imports a plugin; this is the one framework module that names built-in converters).
import {LmcacheLctConverter} from '../../plugins/converters/lmcache-lct.js'
import {TextTraceConverter} from '../../plugins/converters/text-trace.js'

/** Every flag the built-in converters declare (each with its converter's help group). */
export const builtinConverterFlags = {...TextTraceConverter.flags, ...LmcacheLctConverter.flags}
