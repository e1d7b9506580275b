import { requirePeers } from '../util/require-peers';

requirePeers('nest-redis-rate-limit/health', ['@nestjs/terminus']);
