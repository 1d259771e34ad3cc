// The API's handle on the request bound (the API layer never imports src/db itself).
export { extendDatabaseDeadline, withDatabaseDeadline } from '../db/requestDeadline.js';
export { clientWait, InFlightRequests, markStage } from '../db/requestActivity.js';
