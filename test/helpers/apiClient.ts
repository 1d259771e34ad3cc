// A small HTTP client for tests: real requests over the loopback, responses as the client sees them.
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export type RequestOptions = {
  headers?: Record<string, string>;
  body?: unknown;
  /** Send this string as the body, unchanged. */
  rawBody?: string;
  /** Give up (the fetch rejects) when no answer came within this time. */
  timeoutMs?: number;
};

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null,
    private readonly defaults: Record<string, string> = {},
  ) {}

  /** The same client with headers added to every request (X-Act-As-Customer, Accept-Language). */
  with(headers: Record<string, string>): ApiClient {
    return new ApiClient(this.baseUrl, this.token, { ...this.defaults, ...headers });
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...this.defaults, ...options.headers };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = path.startsWith('/api/') || path.startsWith('/healthz') || path.startsWith('/metrics') || path.startsWith('/docs') ? path : `/api/v1${path}`;
    const signal = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
    const res = await fetch(`${this.baseUrl}${url}`, { method, headers, body, signal });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get = (path: string, options?: RequestOptions) => this.request('GET', path, options);
  post = (path: string, body?: unknown, options?: RequestOptions) => this.request('POST', path, { ...options, body });
  patch = (path: string, body?: unknown, options?: RequestOptions) => this.request('PATCH', path, { ...options, body });
  put = (path: string, body?: unknown, options?: RequestOptions) => this.request('PUT', path, { ...options, body });
  delete = (path: string, options?: RequestOptions) => this.request('DELETE', path, options);
}
