// The flags lmt's own converters declare, for what must be known before any discovery: the flags `lmt convert
// --help` lists. The CLI layer wires the built-ins in here, the one module that names built-in converters (a
// command never imports a plugin; the plugin framework and the library below it never name one).
import {LmcacheLctConverter} from '../../plugins/converters/lmcache-lct.js'
import {TextTraceConverter} from '../../plugins/converters/text-trace.js'

/** Every flag the built-in converters declare (each with its converter's help group). */
export const builtinConverterFlags = {...TextTraceConverter.flags, ...LmcacheLctConverter.flags}
