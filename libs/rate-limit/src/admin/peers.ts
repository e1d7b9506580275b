import { requirePeers } from '../util/require-peers';

requirePeers('nest-redis-rate-limit/admin', [
  '@nestjs/swagger',
  'class-validator',
  'class-transformer',
]);
