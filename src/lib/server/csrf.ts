/**
 * CSRF protection for every state-changing request (anything but GET/HEAD/OPTIONS): the request
 * must come from this origin (Origin header, or Sec-Fetch-Site when a browser omits Origin) and
 * carry the double-submit token: the `gexdeck_csrf` cookie value repeated in the `x-csrf-token`
 * header or a `csrf` form field. A cross-site page can neither read the cookie nor set the header.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const CSRF_COOKIE = 'gexdeck_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = 'csrf';

export function newCsrfToken(): string {
	return randomBytes(24).toString('base64url');
}

export function isSafeMethod(method: string): boolean {
	return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/**
 * The request comes from a page of this dashboard: its Origin names the host the request was
 * sent to. The scheme is not compared because adapter-node assumes https unless told otherwise,
 * while a loopback dashboard is served over plain http.
 */
export function sameOrigin(request: Request): boolean {
	const given = request.headers.get('origin');
	const host = request.headers.get('host');
	if (given) {
		try {
			return host !== null && new URL(given).host === host;
		} catch {
			return false;
		}
	}
	return request.headers.get('sec-fetch-site') === 'same-origin';
}

function equalTokens(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

/** The submitted token: header first, else the form field (read from a clone of the body). */
async function submittedToken(request: Request): Promise<string | undefined> {
	const header = request.headers.get(CSRF_HEADER);
	if (header) return header;
	const type = request.headers.get('content-type') ?? '';
	if (
		type.startsWith('application/x-www-form-urlencoded') ||
		type.startsWith('multipart/form-data')
	) {
		const form = await request.clone().formData();
		const field = form.get(CSRF_FIELD);
		return typeof field === 'string' ? field : undefined;
	}
	return undefined;
}

/** undefined when the request passes, else the reason it is refused. */
export async function csrfFailure(
	request: Request,
	cookieToken: string | undefined
): Promise<string | undefined> {
	if (isSafeMethod(request.method)) return undefined;
	if (!sameOrigin(request)) return 'cross-origin request refused';
	const token = await submittedToken(request);
	if (!cookieToken || !token || !equalTokens(cookieToken, token)) {
		return 'missing or wrong CSRF token';
	}
	return undefined;
}
