import { Controller, HttpCode, Post } from '@nestjs/common';
import { Throttle, minutes } from '@nestjs/throttler';

@Controller('auth')
export class AuthController {
  @Post('login')
  @HttpCode(200)
  @Throttle({ default: { limit: 3, ttl: minutes(1) } })
  login() {
    return { token: 'a-token' };
  }
}
