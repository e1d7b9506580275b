/**
 * Every error the library throws on purpose: catch this to tell them from others. Each subclass
 * names one situation; the admin API maps them to HTTP answers in one place.
 * @publicApi
 */
export abstract class RateLimitError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
