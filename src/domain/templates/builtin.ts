// Templates every tenant can apply: what hosting customers set up most.
import type { Template } from './template.js';

export const BUILTIN_TEMPLATES: Template[] = [
  {
    id: 'web-hosting',
    name: 'Web hosting',
    description: 'The apex and www pointing at the web server (IPv4, and IPv6 when given).',
    tenantId: null,
    variables: [
      { name: 'ipv4', kind: 'ipv4', required: true, description: 'IPv4 address of the web server' },
      { name: 'ipv6', kind: 'ipv6', required: false, description: 'IPv6 address of the web server (optional)' },
    ],
    records: [
      { type: 'A', name: '@', data: { address: '{{ipv4}}' } },
      { type: 'A', name: 'www', data: { address: '{{ipv4}}' } },
      { type: 'AAAA', name: '@', data: { address: '{{ipv6}}' } },
      { type: 'AAAA', name: 'www', data: { address: '{{ipv6}}' } },
    ],
  },
  {
    id: 'mail',
    name: 'Mail hosting',
    description: 'MX to the mail server, SPF allowing it, and a DMARC policy.',
    tenantId: null,
    variables: [
      { name: 'mail_host', kind: 'hostname', required: true, description: 'The mail server' },
      { name: 'spf', kind: 'string', required: false, default: 'v=spf1 mx -all', description: 'SPF policy' },
      { name: 'dmarc_policy', kind: 'string', required: false, default: 'none', description: 'DMARC p= (none, quarantine, reject)' },
    ],
    records: [
      { type: 'MX', name: '@', data: { preference: 10, exchange: '{{mail_host}}' } },
      { type: 'TXT', name: '@', data: { text: '{{spf}}' } },
      { type: 'TXT', name: '_dmarc', data: { text: 'v=DMARC1; p={{dmarc_policy}}' } },
    ],
  },
  {
    id: 'microsoft-365',
    name: 'Microsoft 365',
    description: 'Exchange Online mail (MX, SPF, autodiscover) and Teams/Skype SIP records.',
    tenantId: null,
    variables: [
      {
        name: 'mx_host',
        kind: 'hostname',
        required: false,
        default: '{{zone_dashed}}.mail.protection.outlook.com',
        description: 'The MX host shown in the Microsoft 365 admin center',
      },
    ],
    records: [
      { type: 'MX', name: '@', data: { preference: 0, exchange: '{{mx_host}}' } },
      { type: 'TXT', name: '@', data: { text: 'v=spf1 include:spf.protection.outlook.com -all' } },
      { type: 'CNAME', name: 'autodiscover', data: { target: 'autodiscover.outlook.com' } },
      { type: 'CNAME', name: 'sip', data: { target: 'sipdir.online.lync.com' } },
      { type: 'CNAME', name: 'lyncdiscover', data: { target: 'webdir.online.lync.com' } },
      { type: 'SRV', name: '_sip._tls', data: { priority: 100, weight: 1, port: 443, target: 'sipdir.online.lync.com' } },
      { type: 'SRV', name: '_sipfederationtls._tcp', data: { priority: 100, weight: 1, port: 5061, target: 'sipfed.online.lync.com' } },
    ],
  },
  {
    id: 'google-workspace',
    name: 'Google Workspace',
    description: 'Gmail MX and SPF, and the site verification TXT when given.',
    tenantId: null,
    variables: [{ name: 'verification', kind: 'string', required: false, description: 'The google-site-verification token (optional)' }],
    records: [
      { type: 'MX', name: '@', data: { preference: 1, exchange: 'smtp.google.com' } },
      { type: 'TXT', name: '@', data: { text: 'v=spf1 include:_spf.google.com ~all' } },
      { type: 'TXT', name: '@', data: { text: 'google-site-verification={{verification}}' } },
    ],
  },
];
