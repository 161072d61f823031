import { afterEach, describe, expect, it } from 'vitest';
import { formatLine, log, logFormat, setLogSink, type LogSink } from './log';

describe('formatLine', () => {
	const time = new Date('2026-11-24T10:00:00Z');

	it('writes one JSON object per line in json mode, leaving out undefined fields', () => {
		const line = formatLine(
			'json',
			'warn',
			'hub dropped',
			{ hub: 'v2_classic', n: 2, x: undefined },
			time
		);
		expect(line).not.toContain('\n');
		expect(JSON.parse(line)).toEqual({
			time: '2026-11-24T10:00:00.000Z',
			level: 'warn',
			msg: 'hub dropped',
			hub: 'v2_classic',
			n: 2
		});
	});

	it('keeps a multi-line message on one JSON line', () => {
		const line = formatLine('json', 'error', 'failed', { error: 'Error: x\n    at y' }, time);
		expect(line.split('\n')).toHaveLength(1);
		expect((JSON.parse(line) as { error: string }).error).toBe('Error: x\n    at y');
	});

	it('writes the familiar prefix in text mode', () => {
		expect(formatLine('text', 'info', 'shutting down', { signal: 'SIGTERM' }, time)).toBe(
			'gexdeck: shutting down (signal=SIGTERM)'
		);
		expect(formatLine('text', 'info', 'plain', {}, time)).toBe('gexdeck: plain');
	});
});

describe('logFormat', () => {
	it('is json only for GEXDECK_LOG=json', () => {
		expect(logFormat({ GEXDECK_LOG: 'json' })).toBe('json');
		expect(logFormat({ GEXDECK_LOG: ' JSON ' })).toBe('json');
		expect(logFormat({ GEXDECK_LOG: 'text' })).toBe('text');
		expect(logFormat({})).toBe('text');
	});
});

describe('log', () => {
	const saved = process.env.GEXDECK_LOG;
	let previous: LogSink | undefined;
	afterEach(() => {
		if (previous) setLogSink(previous);
		process.env.GEXDECK_LOG = saved;
		if (saved === undefined) delete process.env.GEXDECK_LOG;
	});

	it('sends info to stdout, warnings and errors and forwarded lines to stderr', () => {
		const out: string[] = [];
		const err: string[] = [];
		previous = setLogSink({ out: (l) => out.push(l), err: (l) => err.push(l) });
		process.env.GEXDECK_LOG = 'json';
		log.info('a');
		log.warn('b');
		log.error('c');
		log.forward('service', 'gexdeck service: SIGTERM, shutting down');
		expect(out.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['a']);
		expect(
			err.map((l) => JSON.parse(l) as { msg: string; level: string; source?: string })
		).toEqual([
			expect.objectContaining({ msg: 'b', level: 'warn' }),
			expect.objectContaining({ msg: 'c', level: 'error' }),
			expect.objectContaining({ msg: 'gexdeck service: SIGTERM, shutting down', source: 'service' })
		]);
		process.env.GEXDECK_LOG = '';
		log.forward('service', 'raw line');
		expect(err.at(-1)).toBe('raw line');
	});

	it("passes on a child's own JSON line with its source, not wrapped in another", () => {
		const err: string[] = [];
		previous = setLogSink({ out: () => undefined, err: (l) => err.push(l) });
		process.env.GEXDECK_LOG = 'json';
		const child = formatLine('json', 'error', 'hubs: fan-out failed', { error: 'boom' });
		log.forward('service', child);
		expect(JSON.parse(err[0])).toEqual({ ...JSON.parse(child), source: 'service' });
	});
});
