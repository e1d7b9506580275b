// nest-redis-rate-limit/shedder: remembered rejections answered before routing (opt-in).
export {
  shedRememberedRejections,
  type ShedRememberedRejectionsOptions,
} from './shed-remembered-rejections';
