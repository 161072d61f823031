import type { ServerResponse } from 'node:http';
import type { Principal } from '../accounts/registry';
import type { ServiceContext } from './context';
import { HttpError } from './respond';

export function research(
	_ctx: ServiceContext,
	_res: ServerResponse,
	_principal: Principal,
	_ticker: string,
	_metric: string,
	_query: URLSearchParams
): void {
	throw new HttpError(501, 'Research is being built.');
}
