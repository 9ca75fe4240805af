// vega-canvas's Node build for the CommonJS bundle (scripts/bundle-vega.mjs): the same functions, with `canvas`
// (when installed) loaded by require instead of a top-level await import, which CommonJS cannot hold.
/* global document, Image, require */
function domCanvas(w, h) {
  if (typeof document !== 'undefined' && document.createElement) {
    const c = document.createElement('canvas')
    if (c && c.getContext) {
      c.width = w
      c.height = h
      return c
    }
  }
  return null
}
const domImage = () => (typeof Image !== 'undefined' ? Image : null)

let NodeCanvas
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  NodeCanvas = require('canvas')
  if (!(NodeCanvas && NodeCanvas.createCanvas)) NodeCanvas = null
} catch {
  // do nothing
}
function nodeCanvas(w, h, type) {
  if (NodeCanvas) {
    try {
      return new NodeCanvas.Canvas(w, h, type)
    } catch {
      // do nothing, return null on error
    }
  }
  return null
}
const nodeImage = () => (NodeCanvas && NodeCanvas.Image) || null

function canvas(w, h, type) {
  return domCanvas(w, h) || nodeCanvas(w, h, type) || null
}
function image() {
  return domImage() || nodeImage() || null
}

export {canvas, domCanvas, image, nodeCanvas}
