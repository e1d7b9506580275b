/**
 * A small HTTP client for fuzzing a demo process: keep-alive sockets (one pool per loopback
 * source address, so a surface can look like many clients), raw paths sent as given, a deadline
 * per request (a hang is a defect too), and a count of requests per surface for the report.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';

export interface FuzzRequest {
  method: 'GET' | 'PATCH' | 'PUT' | 'DELETE';
  /** Sent verbatim: the caller encodes it (only bytes 0x21-0x7e; Node's parser refuses the rest). */
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Loopback source address (127.x.y.z), i.e. which client the demo sees. */
  from?: string;
}

export interface FuzzResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const DEADLINE_MS = 15_000;

export class FuzzClient {
  /** Requests sent (answered or not), per surface. */
  readonly counts = new Map<string, number>();
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly port: number) {}

  get total(): number {
    return [...this.counts.values()].reduce((sum, n) => sum + n, 0);
  }

  async send(surface: string, req: FuzzRequest): Promise<FuzzResponse> {
    this.counts.set(surface, (this.counts.get(surface) ?? 0) + 1);
    try {
      return await this.once(req);
    } catch (error) {
      // A kept-alive socket the server closed just as it was reused: the request never arrived.
      if ((error as { reused?: boolean }).reused) return this.once(req);
      throw error;
    }
  }

  close(): void {
    this.agents.forEach((agent) => agent.destroy());
  }

  private agent(from = '127.0.0.1'): Agent {
    let agent = this.agents.get(from);
    if (!agent) {
      agent = new Agent({ keepAlive: true, maxSockets: 32, localAddress: from });
      this.agents.set(from, agent);
    }
    return agent;
  }

  private once({ method, path, headers = {}, body, from }: FuzzRequest): Promise<FuzzResponse> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: this.port, method, path, headers, agent: this.agent(from) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      req.setTimeout(DEADLINE_MS, () =>
        req.destroy(new Error(`no answer within ${DEADLINE_MS} ms`)),
      );
      req.on('error', (error: Error & { code?: string }) => {
        const reused = req.reusedSocket && error.code === 'ECONNRESET';
        reject(Object.assign(new Error(`${method} ${clip(path)}: ${error.message}`), { reused }));
      });
      req.end(body);
    });
  }
}

/** A long text shortened for messages. */
export function clip(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}
