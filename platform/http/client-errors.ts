// Requests Node could not parse (a bad header, headers too large, a method it does not know):
// answered once with problem+json straight onto the socket, then the connection drained and
// closed. Fastify's own answer there is a JSON body of its own.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AllowedMethods } from './allowed-methods.js';
import { closeGracefully } from './graceful-close.js';
import { HttpProblem, type AnswerFor } from './http-problem.js';
import { rawProblemResponse } from './problem-writers.js';

/** What Node's parser hands `clientError` (Fastify's type for it is not Node's). */
export type ClientError = Error & { code?: string; rawPacket?: Buffer };

const answered = new WeakSet<Socket>();
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.[01]\r?\n/;

export function methodNotAllowed(method: string, methods: string[]): HttpProblem {
  return new HttpProblem(
    'method-not-allowed',
    `${method.slice(0, 32)} is not allowed here; this path takes ${methods.join(', ')}`,
    { headers: { allow: methods.join(', ') } },
  );
}

function problemOf(error: ClientError, allowed: AllowedMethods): HttpProblem {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpProblem('request-timeout', 'the request did not arrive in time');
    case 'HPE_HEADER_OVERFLOW':
      return new HttpProblem('headers-too-large', 'the request headers are too large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new HttpProblem('payload-too-large', 'the chunk extensions are too large');
    default: {
      // A method Node does not know, on a path we have: that path's methods.
      const line = REQUEST_LINE.exec(error.rawPacket?.toString('latin1') ?? '');
      const methods =
        error.code === 'HPE_INVALID_METHOD' && line ? allowed.of(line[2]!) : undefined;
      return methods
        ? methodNotAllowed(line![1]!, methods)
        : new HttpProblem('bad-request', 'the request is not valid HTTP/1.1');
    }
  }
}

/** Node could not parse a request: answer once, then drain and close the connection. */
export function onClientError(
  error: ClientError,
  socket: Socket,
  allowed: AllowedMethods,
  answerFor: AnswerFor,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The broken parser reports each further chunk too: the first answer is the only one.
  if (answered.has(socket)) return;
  answered.add(socket);
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(rawProblemResponse(answerFor(problemOf(error, allowed))));
  }
  closeGracefully(socket);
}
