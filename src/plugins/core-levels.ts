// The replay levels lmt's commands depend on (the storage level: `lmt replay`'s flags and `lmt convert --mode
// lct`'s header config), from one place: commands never import a plugin.
export {normalizeEvictionPolicy, storageLevel} from '../../plugins/levels/storage.js'
