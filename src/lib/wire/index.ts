/**
 * Browser-safe part of the wire codec (decoders, columnar forms, base64). The server-side
 * encoder lives in ./encode (it loads the zstd wasm module) and is imported from there.
 */
export * from './errors';
export * from './typeUrls';
export * from './base64';
export * from './payloads';
export * from './toMessage';
export * from './fromMessage';
export * from './decode';
export * from './columnar';
export * from './columnarDecode';
