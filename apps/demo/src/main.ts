import { NestFactory } from '@nestjs/core';
import { Module } from '@nestjs/common';
import { hello } from '@app/rate-limit';
@Module({})
class AppModule {}
async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  console.log(hello());
  await app.close();
}
void main();
