/**
 * The stream steps' calls on the markets API (docs/stream-marketplace.md): JSON calls (a refusal becomes a StepError
 * naming the platform's code), raw ciphertext upload and ranged, bearer-authenticated download, all through the
 * typed client (transport.ts). The CLI's `cli stream` commands use it too.
 */
import { StepError } from "../errors.js";
import { getBytes, marketsClient, putBytes, send, type Answer, type MarketsClient } from "./transport.js";

export class StreamApi {
  private readonly client: MarketsClient;

  constructor(
    readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {
    this.client = marketsClient(base);
  }

  with(headers: Record<string, string>): StreamApi {
    return new StreamApi(this.base, { ...this.headers, ...headers });
  }

  async call(method: string, route: string, body?: unknown, expected: number[] = [200, 201]): Promise<any> {
    let answer: Answer;
    try {
      answer = await send(this.client, method, route, { body, headers: this.headers });
    } catch (error) {
      if (error instanceof SyntaxError) throw new StepError(`${method} ${route}: not JSON`);
      throw new StepError(`the markets API at ${this.base} is not answering (${(error as Error).message})`);
    }
    const json = answer.body;
    if (!expected.includes(answer.status)) {
      const code = json?.error?.code ?? "";
      throw new StepError(`${method} ${route} refused: ${answer.status} ${code}${json?.error?.message ? ` (${json.error.message})` : ""}`);
    }
    return json;
  }

  /** PUT of raw bytes (chunk ciphertext), with the agent headers. */
  async putBytes(route: string, bytes: Uint8Array): Promise<any> {
    const answer = await putBytes(this.client, route, bytes, this.headers);
    if (answer.status !== 200 && answer.status !== 201) throw new StepError(`PUT ${route} refused: ${answer.status} ${answer.body?.error?.code ?? ""}`);
    return answer.body;
  }

  /** GET of raw bytes from `start` on (Range), with a bearer token: the response, its body not yet read. */
  async getBytes(url: string, token: string, start: number): Promise<Response> {
    const { response, refusal } = await getBytes(this.client, url, token, start);
    if (!response) throw new StepError(`GET ${url} refused: ${refusal?.status} ${refusal?.body?.error?.code ?? ""}`);
    return response;
  }
}

export interface BuyerKey {
  buyerId: string;
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  publicKeyHex: string;
}
