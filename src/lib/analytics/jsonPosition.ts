/**
 * Offset of the first JSON syntax error in `text` (or -1 when it is valid JSON). Node's
 * JSON.parse messages do not reliably carry a position, and a chain-file error must name its
 * line, so this small recursive-descent scanner finds it.
 */
export function jsonErrorOffset(text: string): number {
	let i = 0;
	const ws = () => {
		while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
	};
	class Stop extends Error {}
	const stop = (): never => {
		throw new Stop();
	};
	const literal = (word: string) => {
		if (text.startsWith(word, i)) i += word.length;
		else stop();
	};
	const string = () => {
		i++; // opening quote
		while (i < text.length) {
			const ch = text[i];
			if (ch === '"') {
				i++;
				return;
			}
			if (ch === '\\') {
				const next = text[i + 1];
				if (next === 'u') {
					if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
						i += 2;
						stop();
					}
					i += 6;
				} else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
				else {
					i++;
					stop();
				}
			} else if (ch.charCodeAt(0) < 0x20) stop();
			else i++;
		}
		stop();
	};
	const number = () => {
		const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
		if (m === null || m[0] === '' || m[0] === '-') stop();
		else i += m[0].length;
	};
	const value = (): void => {
		ws();
		const ch = text[i];
		if (ch === '{') {
			i++;
			ws();
			if (text[i] === '}') {
				i++;
				return;
			}
			for (;;) {
				ws();
				if (text[i] !== '"') stop();
				string();
				ws();
				if (text[i] !== ':') stop();
				i++;
				value();
				ws();
				if (text[i] === ',') {
					i++;
					continue;
				}
				if (text[i] === '}') {
					i++;
					return;
				}
				stop();
			}
		}
		if (ch === '[') {
			i++;
			ws();
			if (text[i] === ']') {
				i++;
				return;
			}
			for (;;) {
				value();
				ws();
				if (text[i] === ',') {
					i++;
					continue;
				}
				if (text[i] === ']') {
					i++;
					return;
				}
				stop();
			}
		}
		if (ch === '"') return string();
		if (ch === 't') return literal('true');
		if (ch === 'f') return literal('false');
		if (ch === 'n') return literal('null');
		return number();
	};
	try {
		value();
		ws();
		return i < text.length ? i : -1;
	} catch (e) {
		if (e instanceof Stop) return i;
		throw e;
	}
}
