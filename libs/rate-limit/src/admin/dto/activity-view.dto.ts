import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { AuditAction, AuditEntry, AuditSource } from '../../runtime/audit/audit-entry';
import type { InstanceView } from '../../runtime/instances/instance-view';

const COUNTS = (what: string) =>
  ApiProperty({
    type: 'integer',
    isArray: true,
    description: `${what} per bucket, oldest first, summed over every instance.`,
  });

/** @publicApi */
export class TrafficColumnsDto {
  @COUNTS('Requests admitted')
  allowed!: number[];

  @COUNTS('Requests rejected (429)')
  rejected!: number[];

  @COUNTS('Requests a shadow-mode policy would have rejected')
  shadowRejected!: number[];
}

/** @publicApi */
export class PolicyTrafficDto extends TrafficColumnsDto {
  @ApiProperty({ type: 'integer', description: 'Length of a bucket (ms).', example: 10_000 })
  bucketMs!: number;

  @ApiProperty({ type: 'integer', description: 'Start of the first bucket (epoch ms).' })
  start!: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Now (epoch ms). The last bucket is the one in progress: its counts cover its start ' +
      'to here (less what instances flush within statsFlushMs).',
  })
  end!: number;
}

/** @publicApi */
export class TrafficOverviewDto {
  @ApiProperty({ type: 'integer', example: 10_000 })
  bucketMs!: number;

  @ApiProperty({ type: 'integer' })
  start!: number;

  @ApiProperty({ type: 'integer' })
  end!: number;

  @ApiProperty({
    description: 'Per policy name, its columns.',
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(TrafficColumnsDto) },
  })
  policies!: Record<string, TrafficColumnsDto>;
}

/** @publicApi */
export class RejectedClientDto {
  @ApiProperty({ description: 'As the keys route lists it.', example: 'ip:203.0.113.7' })
  identity!: string;

  @ApiProperty({ type: 'integer', description: 'Rejections (shadow ones included).' })
  rejected!: number;
}

/** @publicApi */
export class TopRejectedDto {
  @ApiProperty({ type: 'integer', example: 5 })
  minutes!: number;

  @ApiProperty({ type: RejectedClientDto, isArray: true, description: 'Most rejected first.' })
  items!: RejectedClientDto[];
}

const ACTIONS: AuditAction[] = [
  'update',
  'clear-override',
  'update-tier',
  'clear-tier-override',
  'reset',
  'client-override-set',
  'client-override-remove',
  'hash-write',
  'adaptive-direction',
  'adaptive-freeze',
  'adaptive-reset',
];

/** @publicApi */
export class AuditEntryDto implements AuditEntry {
  @ApiProperty({ type: 'integer', description: 'When (epoch ms).' })
  at!: number;

  @ApiProperty({ example: 'demo.gcra' })
  policy!: string;

  @ApiProperty({ enum: ACTIONS })
  action!: AuditAction;

  @ApiPropertyOptional({ example: 'pro' })
  tier?: string;

  @ApiPropertyOptional({ description: 'As listed by the admin API.', example: 'ip:203.0.113.7' })
  identity?: string;

  @ApiProperty({
    description: 'The override (or client override) before; null: none.',
    type: 'object',
    additionalProperties: true,
    nullable: true,
  })
  before!: unknown;

  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true })
  after!: unknown;

  @ApiProperty({ description: 'The instance that made or noticed the change.' })
  instance!: string;

  @ApiProperty({
    enum: ['api', 'hash', 'adaptive'],
    description:
      "'hash': written straight into the policy's Redis hash; 'adaptive': the adaptive fleet " +
      'loop changed direction (policy "(adaptive)")',
  })
  source!: AuditSource;
}

/** @publicApi */
export class AuditPageDto {
  @ApiProperty({ type: AuditEntryDto, isArray: true, description: 'Newest first.' })
  items!: AuditEntryDto[];
}

/** @publicApi */
export class InstanceDto implements InstanceView {
  @ApiProperty({ example: 'web-1/4242/9f1c2d3e' })
  id!: string;

  @ApiProperty()
  host!: string;

  @ApiProperty({ type: 'integer' })
  pid!: number;

  @ApiProperty({ example: '0.2.0' })
  version!: string;

  @ApiProperty({ enum: ['redis', 'memory'] })
  store!: 'redis' | 'memory';

  @ApiProperty({ enum: ['closed', 'open'] })
  breaker!: 'closed' | 'open';

  @ApiProperty({ description: 'Decided requests without Redis in the last 10 s.' })
  fallback!: boolean;

  @ApiPropertyOptional({
    enum: ['memory', 'open', 'closed'],
    description:
      'What it does when Redis cannot decide (`onRedisError`); absent from instances of ' +
      'versions before it was reported.',
  })
  onRedisError?: 'memory' | 'open' | 'closed';

  @ApiProperty({ type: 'integer' })
  startedAt!: number;

  @ApiProperty({ type: 'integer' })
  lastBeatAt!: number;

  @ApiProperty({ type: 'integer', nullable: true })
  lastFlushAt!: number | null;

  @ApiProperty({ description: 'The instance that answered.' })
  self!: boolean;
}

/** @publicApi */
export class InstancesDto {
  @ApiProperty({
    enum: ['up', 'down', 'none'],
    description: "Whether the answering instance reaches Redis ('none': no Redis configured).",
  })
  redis!: 'up' | 'down' | 'none';

  @ApiProperty()
  self!: string;

  @ApiProperty({ type: InstanceDto, isArray: true })
  instances!: InstanceDto[];
}
