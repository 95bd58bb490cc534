<?php

namespace App\Mail;

/**
 * Sends templated mail.
 */
#[Service]
class Mailer
{
    private array $sent = [];

    /**
     * Sends one message.
     */
    public function send(string $to, string $body): bool
    {
        $this->sent[] = [$to, $body];
        return true;
    }

    public function count(): int
    {
        return count($this->sent);
    }
}

interface Transport
{
    public function deliver(string $raw): void;
}

trait Retries
{
    public function retry(callable $f, int $times = 3)
    {
        return $f();
    }
}

function render_template(string $name, array $vars): string
{
    return strtr($name, $vars);
}
