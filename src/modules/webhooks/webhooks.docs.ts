/** Long OpenAPI descriptions of the webhook endpoints (kept apart so the routes file stays thin). */
import { catalogueMarkdown } from '../events/events.catalogue.js';
import { RETRY_DELAYS_SECONDS } from './retry-policy.js';
import { VERIFY_SNIPPET } from './signature.js';

export const registrationDescription = [
  'Registers a webhook endpoint (spec 2.5, 4.2). Required: `url` (http or https) and `events` (names from the catalogue below).',
  'Private, loopback and link-local addresses are refused unless the service runs with WEBHOOK_ALLOW_PRIVATE_URLS=true.',
  '`idEmpresa` may be omitted when the caller belongs to exactly one company. Managing endpoints needs the `administrador` role.',
  'The endpoint receives the events of its types raised from its creation on (and, after `enabled: false`, from when it is enabled again); earlier events stay in the feed `GET /api/v1/eventos`.',
  '',
  'Errors (spec 7): missing `url` or `events` → 400 `{"error": "Los campos requeridos son url y events.", "code": "WEBHOOK_CAMPOS_REQUERIDOS", …}`;',
  'empty or non-JSON body → 400 `{"error": "El payload está vacío o no es válido.", "code": "WEBHOOK_PAYLOAD_INVALIDO", …}`;',
  'unknown event name → 400 `WEBHOOK_EVENTO_DESCONOCIDO`; an event no built feature emits yet (`emitted: false` in the catalogue) → 400',
  '`WEBHOOK_EVENTO_NO_DISPONIBLE`; a header name that is not an RFC 7230 token or a value with CR, LF or other characters outside',
  'visible ASCII, space and tab → 400 `WEBHOOK_ENCABEZADO_INVALIDO`; a `whsec_` secret that is not base64 of at least 24 bytes → 400',
  '`WEBHOOK_SECRETO_INVALIDO`.',
  '',
  '**Disabled endpoints** (`enabled: false`) get no new deliveries (events raised meanwhile are not queued for them); deliveries',
  'already pending wait and go out when the endpoint is enabled again. Testing or re-delivering a disabled endpoint → 409 `WEBHOOK_DESACTIVADO`.',
  'Header values are returned to administradores (and operators) only; other roles see the names with `********`.',
  '',
  '**Delivery** (spec 3, 6): each event is POSTed as JSON to every enabled endpoint of the company subscribed to it.',
  'Any 2xx → `entregado`. 429, 5xx, timeout (default 10 s for the whole attempt, WEBHOOK_TIMEOUT_MS) or network error → retried; other 4xx (and 3xx,',
  'redirects are not followed) → `fallido`, no retry. The first attempt goes out at once; the k-th retry waits',
  `${RETRY_DELAYS_SECONDS.join(', ')} s (k-th value) after the k-th failure. After \`maxAttempts\` attempts (default 8) the delivery is \`agotado\`.`,
  '',
  '**Headers of every delivery:** `Content-Type: application/json`, the endpoint `headers`, `Idempotency-Key` (the delivery key, the same',
  'on every attempt and re-delivery of that delivery: deduplicate on it), and the Standard Webhooks headers `webhook-id` (the event id,',
  'e.g. `evt_123`, equal to the body `id`), `webhook-timestamp` (Unix seconds of the attempt) and, when the endpoint has a `secret`,',
  '`webhook-signature: v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{raw body}">`.',
  'A `whsec_<base64>` secret is base64-decoded to get the HMAC key; any other secret is used as its UTF-8 bytes.',
  '',
  'Verify a delivery (Node.js):',
  '```js',
  VERIFY_SNIPPET,
  '```',
  '',
  '**Event catalogue**',
  '',
  catalogueMarkdown(),
].join('\n');

export const deliveriesDescription = [
  'Deliveries of the endpoint, newest first, each with every attempt: time, HTTP status, duration, error and the first 1024',
  'characters of the response body. States: `pendiente`, `entregado`, `fallido`, `agotado`.',
].join('\n');

export const redeliverDescription = [
  'Puts a finished delivery (entregado, fallido or agotado) back in the queue at once with a fresh attempt budget.',
  'The `Idempotency-Key` and `webhook-id` stay the same; the signature uses the current secret. 409 while still pendiente.',
].join('\n');
