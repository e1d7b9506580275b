import { requirePeers } from '../util/require-peers';

requirePeers('nest-redis-rate-limit/openapi', ['@nestjs/swagger']);
