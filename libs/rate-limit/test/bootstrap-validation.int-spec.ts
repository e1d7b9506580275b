/**
 * The bootstrap refuses invalid policies and module options, naming the handler (and the class
 * it is declared on) and the field: the module booted with each application's controllers.
 */
import { Controller, Get } from '@nestjs/common';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { bootApp, bootError } from './support/boot-app';

@Controller('styled')
class StyledController {
  @Get()
  @RateLimit({ name: 'styled', algo: 'sliding-window', limit: 1, window: '10s' })
  handler() {
    return { ok: true };
  }
}

describe('RateLimitGuard bootstrap validation', () => {
  it('rejects a zero limit, naming the handler and "limit"', async () => {
    @Controller()
    class ZeroLimitController {
      @Get()
      @RateLimit({ limit: 0, window: '1s' })
      handler() {}
    }
    const error = await bootError({ controllers: [ZeroLimitController] });
    expect(error.message).toContain('ZeroLimitController.handler');
    expect(error.message).toContain('"limit"');
  });

  it('rejects a bad window, naming the handler and "window"', async () => {
    @Controller()
    class BadWindowController {
      @Get()
      @RateLimit({ limit: 5, window: '10 parsecs' })
      list() {}
    }
    const error = await bootError({ controllers: [BadWindowController] });
    expect(error.message).toContain('BadWindowController.list');
    expect(error.message).toContain('"window"');
  });

  it('rejects a bad class-level policy, naming the handler it applies to', async () => {
    @Controller()
    @RateLimit({ limit: 5, window: -1 })
    class BadClassController {
      @Get()
      index() {}
    }
    const error = await bootError({ controllers: [BadClassController] });
    expect(error.message).toContain('BadClassController.index');
    expect(error.message).toContain('"window"');
  });

  it('rejects two unnamed @RateLimit on one handler', async () => {
    @Controller()
    class TwinController {
      @Get()
      @RateLimit({ limit: 5, window: '1s' })
      @RateLimit({ limit: 50, window: '1m' })
      handler() {}
    }
    const error = await bootError({ controllers: [TwinController] });
    expect(error.message).toContain('TwinController.handler');
    expect(error.message).toContain('"name"');
  });

  it('rejects same-named policies with different options on two handlers', async () => {
    @Controller()
    class ConflictController {
      @Get('one')
      @RateLimit({ name: 'shared', limit: 5, window: '1m' })
      one() {}

      @Get('two')
      @RateLimit({ name: 'shared', limit: 6, window: '1m' })
      two() {}
    }
    const error = await bootError({ controllers: [ConflictController] });
    expect(error.message).toContain('ConflictController.two');
    expect(error.message).toContain('ConflictController.one');
    expect(error.message).toContain('"limit"');
  });

  it('accepts same-named policies with the same options on two handlers', async () => {
    @Controller()
    class SharedController {
      @Get('one')
      @RateLimit({ name: 'shared-ok', limit: 5, window: '1m' })
      one() {}

      @Get('two')
      @RateLimit({ name: 'shared-ok', limit: 5, window: 60_000 })
      two() {}
    }
    const app = await bootApp({ controllers: [SharedController] });
    await app.close();
  });

  it('rejects an unknown key source, naming the handler and "key"', async () => {
    @Controller()
    class BadKeyController {
      @Get()
      @RateLimit({ limit: 5, window: '1s', key: 'cookie' as never })
      handler() {}
    }
    const error = await bootError({ controllers: [BadKeyController] });
    expect(error.message).toContain('BadKeyController.handler');
    expect(error.message).toContain('"key"');
  });

  it('rejects a bad module option, naming it', async () => {
    const error = await bootError({
      controllers: [StyledController],
      options: { headers: 'fancy' as never },
    });
    expect(error.message).toContain('RateLimitModule options');
    expect(error.message).toContain('"headers"');
  });
});
