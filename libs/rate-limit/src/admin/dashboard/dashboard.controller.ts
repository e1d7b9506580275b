import {
  Controller,
  Get,
  Headers,
  Inject,
  NotFoundException,
  Param,
  Req,
  Res,
  ServiceUnavailableException,
  UseGuards,
  type StreamableFile,
  type Type,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { SkipRateLimit } from '../../decorators/skip-rate-limit.decorator';
import type { HeaderWriter } from '../../guard/set-response-header';
import { NoSniffGuard } from '../no-sniff.guard';
import { renderIndex, type DashboardAsset } from './dashboard-assets';
import { sendAsset } from './dashboard-response';

export const DASHBOARD_ASSETS = Symbol('DASHBOARD_ASSETS');

type Assets = Map<string, DashboardAsset> | undefined;

interface RequestLine {
  originalUrl?: string;
  url?: string;
}

/**
 * The dashboard's controller for one mount `path` (relative to the admin module's own path).
 * The page and its files are public: they hold no data; everything the page shows comes from
 * the admin API with the bearer token the operator types in. Not rate limited, not in Swagger;
 * every answer, errors included, is `nosniff`.
 */
export function dashboardController(path: string): Type<unknown> {
  @ApiExcludeController()
  @SkipRateLimit()
  // Its 404 names the file asked for: no browser may take that JSON for a page.
  @UseGuards(NoSniffGuard)
  @Controller(path)
  class RateLimitDashboardController {
    constructor(@Inject(DASHBOARD_ASSETS) private readonly assets: Assets) {}

    @Get()
    page(
      @Req() request: RequestLine,
      @Res({ passthrough: true }) response: HeaderWriter,
      @Headers('accept-encoding') encoding?: string,
    ): StreamableFile {
      const index = this.assets?.get('index.html');
      if (!index) {
        throw new ServiceUnavailableException(
          'The dashboard was not built: run `npm run build` (vite builds it into the package)',
        );
      }
      const own = ownPath(request, path);
      const html = renderIndex(index.body.toString('utf8'), own, own.slice(0, -path.length - 2));
      return sendAsset(response, index, encoding, Buffer.from(html));
    }

    @Get('assets/:file')
    asset(
      @Param('file') file: string,
      @Res({ passthrough: true }) response: HeaderWriter,
      @Headers('accept-encoding') encoding?: string,
    ): StreamableFile {
      return this.send(`assets/${file}`, response, encoding);
    }

    @Get(':file')
    topLevel(
      @Param('file') file: string,
      @Req() request: RequestLine,
      @Res({ passthrough: true }) response: HeaderWriter,
      @Headers('accept-encoding') encoding?: string,
    ): StreamableFile {
      // Fastify under Nest 11.0 routes the trailing-slash form of the page here, file empty.
      if (file === '') return this.page(request, response, encoding);
      return this.send(file, response, encoding);
    }

    private send(name: string, response: HeaderWriter, encoding?: string): StreamableFile {
      // Only files loaded at startup exist here: a name is a map key, never a file path.
      const asset = name === 'index.html' ? undefined : this.assets?.get(name);
      if (!asset) throw new NotFoundException(`No dashboard file "${name}"`);
      return sendAsset(response, asset, encoding);
    }
  }
  return RateLimitDashboardController;
}

/** The page's own path as requested (global prefix, versions and all), with a trailing slash. */
export function ownPath(request: RequestLine, path: string): string {
  const url = request.originalUrl ?? request.url ?? `/${path}`;
  // Parsed against a fixed origin: an absolute-form target (`GET http://other/...`) gives its
  // path only, never another host for the page's base or API.
  let pathname: string;
  try {
    pathname = new URL(url, 'http://localhost').pathname.replace(/\/{2,}/g, '/');
  } catch {
    pathname = `/${path}`;
  }
  return pathname.endsWith('/') ? pathname : `${pathname}/`;
}
