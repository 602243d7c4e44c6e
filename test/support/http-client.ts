/** A client of a listening server, over a real socket, as an outside program would call it. */
export type Client = { readonly url: string; readonly secret?: string };

export type Answer = {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON. */
  readonly body: Record<string, unknown>;
};

/** One request with the client's key, and a JSON body when one is given. */
export async function send(
  client: Client,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${client.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(client.secret === undefined ? {} : { authorization: `Bearer ${client.secret}` }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    get body() {
      return JSON.parse(text) as Record<string, unknown>;
    },
  };
}
