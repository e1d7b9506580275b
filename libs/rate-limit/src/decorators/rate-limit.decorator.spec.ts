import { Reflector } from '@nestjs/core';
import { RATE_LIMIT_METADATA, SKIP_RATE_LIMIT_METADATA } from '../rate-limit.constants';
import { RateLimit, getDeclaredRateLimits, getInheritedRateLimits } from './rate-limit.decorator';
import { SkipRateLimit } from './skip-rate-limit.decorator';

@RateLimit({ name: 'class-first', limit: 1, window: '1s' })
@RateLimit({ name: 'class-second', limit: 2, window: '1s' })
class LimitedController {
  @RateLimit({ name: 'a', limit: 1, window: '1s' })
  @RateLimit({ name: 'b', limit: 2, window: '2s' })
  @RateLimit({ name: 'c', limit: 3, window: '3s' })
  stacked(): void {}

  @RateLimit({ limit: 9, window: '1m' })
  single(): void {}

  plain(): void {}
}

@SkipRateLimit()
class SkippedController {
  handler(): void {}
}

class MixedController {
  @SkipRateLimit()
  skipped(): void {}

  limited(): void {}
}

class BaseController {
  @RateLimit({ name: 'base', limit: 1, window: '1s' })
  inherited(): void {}
}
class ChildController extends BaseController {}

describe('@RateLimit', () => {
  const proto = LimitedController.prototype;

  it('keeps stacked handler policies in source order', () => {
    expect(getDeclaredRateLimits(proto.stacked).map((o) => o.name)).toEqual(['a', 'b', 'c']);
    expect(getDeclaredRateLimits(proto.stacked)[1]).toEqual({ name: 'b', limit: 2, window: '2s' });
  });

  it('keeps stacked class policies in source order', () => {
    expect(getDeclaredRateLimits(LimitedController).map((o) => o.name)).toEqual([
      'class-first',
      'class-second',
    ]);
  });

  it('stores class-level and method-level metadata separately', () => {
    expect(getDeclaredRateLimits(proto.single)).toEqual([{ limit: 9, window: '1m' }]);
    expect(getDeclaredRateLimits(proto.plain)).toEqual([]);
    const onClass = getDeclaredRateLimits(LimitedController).map((o) => o.name);
    expect(onClass).not.toContain('a');
    expect(onClass).not.toContain(undefined);
  });

  it('exposes the options under RATE_LIMIT_METADATA for a Reflector', () => {
    const reflector = new Reflector();
    expect(reflector.get(RATE_LIMIT_METADATA, proto.single)).toEqual([{ limit: 9, window: '1m' }]);
    expect(reflector.get(RATE_LIMIT_METADATA, LimitedController)).toHaveLength(2);
  });

  it('keeps the options object it was given', () => {
    const options = { name: 'same', limit: 4, window: 10 };
    class C {
      @RateLimit(options)
      h(): void {}
    }
    expect(getDeclaredRateLimits(C.prototype.h)[0]).toBe(options);
  });

  it('is read from the handler function, so an inherited handler keeps it', () => {
    expect(getDeclaredRateLimits(ChildController.prototype.inherited).map((o) => o.name)).toEqual([
      'base',
    ]);
    expect(getDeclaredRateLimits(ChildController)).toEqual([]);
  });

  it('lists the class-level policies of a controller and its base classes, base first', () => {
    @RateLimit({ name: 'grand', limit: 1, window: '1s' })
    class Grand {}
    class Parent extends Grand {}
    @RateLimit({ name: 'child', limit: 2, window: '1s' })
    class Child extends Parent {}
    const names = getInheritedRateLimits(Child).map((level) => level.map((o) => o.name));
    expect(names).toEqual([['grand'], [], ['child']]);
  });
});

describe('@SkipRateLimit', () => {
  const reflector = new Reflector();

  it('marks a class', () => {
    expect(reflector.get(SKIP_RATE_LIMIT_METADATA, SkippedController)).toBe(true);
    expect(
      reflector.get(SKIP_RATE_LIMIT_METADATA, SkippedController.prototype.handler),
    ).toBeUndefined();
  });

  it('marks a handler only', () => {
    expect(reflector.get(SKIP_RATE_LIMIT_METADATA, MixedController.prototype.skipped)).toBe(true);
    expect(
      reflector.get(SKIP_RATE_LIMIT_METADATA, MixedController.prototype.limited),
    ).toBeUndefined();
    expect(reflector.get(SKIP_RATE_LIMIT_METADATA, MixedController)).toBeUndefined();
  });

  it('resolves handler over class with getAllAndOverride', () => {
    const handler = SkippedController.prototype.handler;
    expect(
      reflector.getAllAndOverride(SKIP_RATE_LIMIT_METADATA, [handler, SkippedController]),
    ).toBe(true);
    expect(
      reflector.getAllAndOverride(SKIP_RATE_LIMIT_METADATA, [
        MixedController.prototype.limited,
        MixedController,
      ]),
    ).toBeUndefined();
  });
});
