// An SMTP relay for tests, speaking RFC 5321 on a real socket: greeting, EHLO (offering AUTH
// PLAIN, no STARTTLS), AUTH, the envelope, DATA up to CRLF.CRLF, QUIT. It keeps what it was sent.
import net from 'node:net';

export interface Session {
  commands: string[];
  data: string;
}

/** A minimal relay: 250 to everything, 535 for a wrong password, 550 for `RCPT TO` of `rejectTo`. */
export function smtpServer(options: { password: string; rejectTo?: string }) {
  const sessions: Session[] = [];
  const server = net.createServer((socket) => {
    const session: Session = { commands: [], data: '' };
    sessions.push(session);
    let buffer = '';
    let inData = false;
    socket.write('220 test.example ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          session.data = buffer.slice(0, end + 2);
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write('250 queued\r\n');
          continue;
        }
        const i = buffer.indexOf('\r\n');
        if (i < 0) return;
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        session.commands.push(line);
        const verb = line.split(' ')[0]!.toUpperCase();
        if (verb === 'EHLO') socket.write('250-test.example\r\n250-AUTH PLAIN\r\n250 8BITMIME\r\n');
        else if (verb === 'AUTH') {
          const [, user, password] = Buffer.from(line.split(' ')[2] ?? '', 'base64')
            .toString('utf8')
            .split('\0');
          socket.write(user === 'mailer' && password === options.password ? '235 ok\r\n' : '535 bad credentials\r\n');
        } else if (verb === 'RCPT') socket.write(options.rejectTo && line.includes(options.rejectTo) ? '550 no such user\r\n' : '250 ok\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => {});
  });
  return {
    sessions,
    listen: () => new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as net.AddressInfo).port))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
