/**
 * The body of a /history answer as its bytes, inflated. The server sends a day's answers
 * gzip-encoded whatever the request said; a browser's fetch inflates them on the way, but an
 * answer SvelteKit's server-side fetch passes on as sent (a page's load on the server), or its
 * copy inlined in the page for the browser's load to replay, still holds the gzip stream. The
 * bodies themselves never start with gzip's magic (an overview starts "GXO2", a moment "{").
 */

const GZIP_MAGIC = [0x1f, 0x8b] as const;

export function isGzip(bytes: Uint8Array): boolean {
	return bytes.length >= 2 && bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
}

/** `bytes`, inflated when they are a gzip stream (DecompressionStream: browsers and Node). */
export async function inflated(bytes: Uint8Array): Promise<Uint8Array> {
	if (!isGzip(bytes)) return bytes;
	const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
		.stream()
		.pipeThrough(new DecompressionStream('gzip'));
	return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The answer's body, inflated. */
export async function answerBytes(res: Response): Promise<Uint8Array> {
	return inflated(new Uint8Array(await res.arrayBuffer()));
}
