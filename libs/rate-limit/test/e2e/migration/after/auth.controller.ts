import { Controller, HttpCode, Post } from '@nestjs/common';
import { RateLimit } from '@app/rate-limit';

@Controller('auth')
export class AuthController {
  @Post('login')
  @HttpCode(200)
  @RateLimit({ algo: 'sliding-window', limit: 3, window: '1m', blockFor: '1m' })
  login() {
    return { token: 'a-token' };
  }
}
