/** Production (live tokens) or the sandbox lab (test tokens); one binary serves either. */
export type Deployment = 'sandbox' | 'production';
