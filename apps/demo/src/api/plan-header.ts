import type { ExecutionContext } from '@nestjs/common';

/**
 * DEMO SHORTCUT, NOT A SAFE SOURCE: the tier comes from a header the client sends, so any
 * client can claim any plan. A real application takes it from what it authenticated (say,
 * `request.user.plan` after its auth guard), never from the request as sent.
 */
export function planHeader(context: ExecutionContext): string | undefined {
  const plan = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers[
    'x-plan'
  ];
  return typeof plan === 'string' ? plan : undefined;
}
