/**
 * Wire codec: per 400-strike SPX Gex frame, the encode time on the service side (REST chain ->
 * protobuf -> zstd -> Any), the decode time on the browser side (Any -> fzstd -> static
 * protobuf -> REST values, -> columnar typed arrays from those, and straight from the message
 * as the page decodes), fzstd against the zstd wasm build
 * for decompression (issue 6: use a faster decoder only if it pays), and the bytes per frame
 * (REST JSON vs raw protobuf vs zstd frame vs base64 in the Web PubSub envelope).
 *
 * Targets: encode < 1 ms (the hub loop encodes every group once per second: 150 groups in
 * < 20% of a core leaves ~1.3 ms each), decode < 1 ms (a worker keeping up with many groups per
 * animation frame), zstd frame smaller than the raw protobuf (the synthetic chain is noisy, so
 * this is a floor; smooth real profiles compress better).
 */
import { compress, decompress as wasmDecompress, init } from '@bokuweb/zstd-wasm';
import { decompress as fzstdDecompress } from 'fzstd';
import { spxChain } from '../src/lib/wire/arbitraries.test-support';
import { bytesToBase64 } from '../src/lib/wire/base64';
import { columnarGex } from '../src/lib/wire/columnar';
import { decodeColumnarFrame } from '../src/lib/wire/columnarDecode';
import { decodeFrame, unwrapAny } from '../src/lib/wire/decode';
import { encodeFrame, encodeInner, initWireEncoder } from '../src/lib/wire/encode';
import { groupDataText } from '../src/lib/contract/pubsub';
import type { ClassicChain } from '../src/lib/contract/schemas';

const ITERATIONS = Number(process.env.BENCH_WIRE_ITERATIONS ?? 2000);

function measure(fn: () => void): { median: number; p99: number } {
	for (let i = 0; i < 200; i++) fn(); // warm-up (JIT)
	const times: number[] = [];
	for (let i = 0; i < ITERATIONS; i++) {
		const t = performance.now();
		fn();
		times.push(performance.now() - t);
	}
	times.sort((a, b) => a - b);
	return {
		median: times[Math.floor(times.length / 2)],
		p99: times[Math.floor(times.length * 0.99)]
	};
}

const ms = (v: number) => `${(v * 1000).toFixed(0)} µs`;

async function main(): Promise<void> {
	await initWireEncoder();
	await init();
	const chain = spxChain(400);
	const frame = encodeFrame('gex', chain);
	const inner = encodeInner('gex', chain);
	const compressed = unwrapAny(frame).value;

	let sink = 0;
	const encode = measure(() => {
		sink += encodeFrame('gex', chain).length;
	});
	const decode = measure(() => {
		sink += (decodeFrame(frame).value as ClassicChain).strikes.length;
	});
	const decodeColumnar = measure(() => {
		sink += columnarGex(decodeFrame(frame).value as ClassicChain).strikes.length;
	});
	// The page's path: message straight to columns, no REST rows in between.
	const decodeDirect = measure(() => {
		sink += (decodeColumnarFrame(frame).value as { strikes: Float64Array }).strikes.length;
	});
	const fz = measure(() => {
		sink += fzstdDecompress(compressed).length;
	});
	const wasm = measure(() => {
		sink += wasmDecompress(compressed).length;
	});
	const level1 = compress(inner, 1).length;
	const envelope = groupDataText('SPX_classic_gex_full', bytesToBase64(frame)).length;
	const json = JSON.stringify(chain).length;

	console.log(
		`400-strike SPX Gex frame, ${ITERATIONS} iterations after warm-up (node ${process.version})\n`
	);
	console.log('| measure | median | p99 | target |');
	console.log('|---|---|---|---|');
	console.log(
		`| encode (chain -> Any bytes, zstd 3) | ${ms(encode.median)} | ${ms(encode.p99)} | < 1000 µs |`
	);
	console.log(
		`| decode (Any -> REST values) | ${ms(decode.median)} | ${ms(decode.p99)} | < 1000 µs |`
	);
	console.log(
		`| decode + columnar typed arrays | ${ms(decodeColumnar.median)} | ${ms(decodeColumnar.p99)} | < 1000 µs |`
	);
	console.log(
		`| decode straight to columns (decodeColumnarFrame, the page's path) | ${ms(decodeDirect.median)} | ${ms(decodeDirect.p99)} | < 1000 µs |`
	);
	console.log(`| zstd decompress only: fzstd (JS) | ${ms(fz.median)} | ${ms(fz.p99)} | - |`);
	console.log(`| zstd decompress only: zstd-wasm | ${ms(wasm.median)} | ${ms(wasm.p99)} | - |`);
	console.log(
		`| fzstd / wasm decompress ratio | ${(fz.median / wasm.median).toFixed(2)} | | wasm only if it saves > 100 µs/frame |`
	);
	console.log('\n| bytes per frame | bytes | ratio to raw protobuf | target |');
	console.log('|---|---|---|---|');
	console.log(`| REST JSON body | ${json} | ${(json / inner.length).toFixed(2)} | - |`);
	console.log(`| raw protobuf (Gex) | ${inner.length} | 1.00 | - |`);
	console.log(`| zstd level 1 | ${level1} | ${(level1 / inner.length).toFixed(2)} | - |`);
	console.log(
		`| Any frame (zstd level 3) | ${frame.length} | ${(frame.length / inner.length).toFixed(2)} | < 1.00 |`
	);
	console.log(
		`| Web PubSub JSON text (base64) | ${envelope} | ${(envelope / inner.length).toFixed(2)} | - |`
	);
	if (sink === 0) console.log('(sink)');
}

await main();
