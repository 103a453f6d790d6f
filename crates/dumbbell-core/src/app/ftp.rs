//! The FTP-like control dialogue of a file-transfer task (RFC 959, active
//! mode), as a state machine over byte counts.
//!
//! The control connection is modelled as two one-way TCP streams on one
//! 4-tuple: requests client → server, replies server → client (dumbbell's
//! TCP carries data one way per connection; a reply's ACK and the next
//! request are separate packets rather than one piggybacked segment). The
//! dialogue:
//! 1. the client opens the connection (SYN); the server accepts when the
//!    SYN arrives and sends its greeting (220);
//! 2. `rounds` times: the client sends a request once the previous reply
//!    has fully arrived (USER, PASS, TYPE, PORT), the server replies once
//!    the request has fully arrived;
//! 3. the client sends RETR; when it arrives the server opens the data
//!    connection toward the client (SYN from the server, as in active mode)
//!    and replies 150 on the control connection;
//! 4. the task completes when the file's last byte reaches the client.
//!
//! The closing 226 reply and QUIT come after the completion time and are
//! not modelled. Progress is driven by cumulative byte counts (a message
//! has arrived when the receiver holds all its bytes in order), so the
//! machine is exact under loss and retransmission.

use crate::config::ControlConfig;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The client's SYN is on its way to the server.
    Connecting,
    /// The server's greeting is on its way to the client.
    Greeting,
    /// Request k (from 1) is on its way to the server.
    Request(u32),
    /// The reply to request k is on its way to the client.
    Reply(u32),
    /// RETR is on its way to the server.
    Retrieve,
    /// The data connection carries the file.
    Transfer,
}

/// What the world must do after an event of the dialogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    None,
    /// The server accepts: open its reply stream and write the greeting.
    Greet {
        bytes: u32,
    },
    /// The client writes a request.
    Request {
        bytes: u32,
    },
    /// The server writes a reply.
    Reply {
        bytes: u32,
    },
    /// The server opens the data connection and writes the 150 reply.
    OpenData {
        reply_bytes: u32,
    },
}

#[derive(Clone, Copy, Debug)]
pub struct Dialogue {
    script: Script,
    stage: Stage,
    /// Request bytes the server must hold for the current request.
    to_server: u64,
    /// Reply bytes the client must hold for the current reply.
    to_client: u64,
}

/// The sizes of the dialogue's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Script {
    pub banner_bytes: u32,
    pub rounds: u32,
    pub request_bytes: u32,
    pub response_bytes: u32,
}

impl From<&ControlConfig> for Script {
    fn from(c: &ControlConfig) -> Self {
        Script {
            banner_bytes: c.banner_bytes,
            rounds: c.rounds,
            request_bytes: c.request_bytes,
            response_bytes: c.response_bytes,
        }
    }
}

impl Dialogue {
    pub fn new(script: Script) -> Self {
        Dialogue {
            script,
            stage: Stage::Connecting,
            to_server: 0,
            to_client: 0,
        }
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The client's SYN reached the server (a retransmitted SYN changes
    /// nothing).
    pub fn on_syn(&mut self) -> Action {
        if self.stage != Stage::Connecting {
            return Action::None;
        }
        self.stage = Stage::Greeting;
        self.to_client += self.script.banner_bytes as u64;
        Action::Greet {
            bytes: self.script.banner_bytes,
        }
    }

    /// The client holds `bytes` of the server's replies, in order.
    pub fn on_client_bytes(&mut self, bytes: u64) -> Action {
        let next = match self.stage {
            Stage::Greeting => 1,
            Stage::Reply(k) => k + 1,
            _ => return Action::None,
        };
        if bytes < self.to_client {
            return Action::None;
        }
        self.stage = if next <= self.script.rounds {
            Stage::Request(next)
        } else {
            Stage::Retrieve
        };
        self.to_server += self.script.request_bytes as u64;
        Action::Request {
            bytes: self.script.request_bytes,
        }
    }

    /// The server holds `bytes` of the client's requests, in order.
    pub fn on_server_bytes(&mut self, bytes: u64) -> Action {
        if bytes < self.to_server {
            return Action::None;
        }
        match self.stage {
            Stage::Request(k) => {
                self.stage = Stage::Reply(k);
                self.to_client += self.script.response_bytes as u64;
                Action::Reply {
                    bytes: self.script.response_bytes,
                }
            }
            Stage::Retrieve => {
                self.stage = Stage::Transfer;
                self.to_client += self.script.response_bytes as u64;
                Action::OpenData {
                    reply_bytes: self.script.response_bytes,
                }
            }
            _ => Action::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(rounds: u32) -> Script {
        Script {
            banner_bytes: 24,
            rounds,
            request_bytes: 16,
            response_bytes: 32,
        }
    }

    #[test]
    fn the_dialogue_greets_answers_each_request_then_opens_the_data_connection() {
        let mut d = Dialogue::new(script(2));
        assert_eq!(
            d.on_client_bytes(100),
            Action::None,
            "nothing before the SYN"
        );
        assert_eq!(d.on_syn(), Action::Greet { bytes: 24 });
        assert_eq!(d.on_syn(), Action::None, "a retransmitted SYN");
        assert_eq!(d.on_client_bytes(23), Action::None, "greeting not complete");
        assert_eq!(d.on_client_bytes(24), Action::Request { bytes: 16 });
        assert_eq!(d.stage(), Stage::Request(1));
        assert_eq!(d.on_client_bytes(24), Action::None, "no reply expected yet");
        assert_eq!(d.on_server_bytes(15), Action::None);
        assert_eq!(d.on_server_bytes(16), Action::Reply { bytes: 32 });
        assert_eq!(d.on_client_bytes(56), Action::Request { bytes: 16 });
        assert_eq!(d.on_server_bytes(32), Action::Reply { bytes: 32 });
        assert_eq!(d.stage(), Stage::Reply(2));
        // After the last round: RETR.
        assert_eq!(d.on_client_bytes(88), Action::Request { bytes: 16 });
        assert_eq!(d.stage(), Stage::Retrieve);
        assert_eq!(d.on_server_bytes(47), Action::None);
        assert_eq!(d.on_server_bytes(48), Action::OpenData { reply_bytes: 32 });
        assert_eq!(d.stage(), Stage::Transfer);
        assert_eq!(d.on_client_bytes(1000), Action::None);
        assert_eq!(d.on_server_bytes(1000), Action::None);
    }

    #[test]
    fn with_no_rounds_retr_follows_the_greeting() {
        let mut d = Dialogue::new(script(0));
        d.on_syn();
        assert_eq!(d.on_client_bytes(24), Action::Request { bytes: 16 });
        assert_eq!(d.stage(), Stage::Retrieve);
        assert_eq!(d.on_server_bytes(16), Action::OpenData { reply_bytes: 32 });
    }

    #[test]
    fn a_late_count_that_covers_several_messages_advances_one_step() {
        // The receiver reports cumulative bytes; a count that reaches the
        // current message moves one stage, never past messages not yet sent.
        let mut d = Dialogue::new(script(3));
        d.on_syn();
        assert_eq!(d.on_client_bytes(10_000), Action::Request { bytes: 16 });
        assert_eq!(d.on_client_bytes(10_000), Action::None);
        assert_eq!(d.stage(), Stage::Request(1));
    }
}
