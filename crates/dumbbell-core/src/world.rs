//! The world and its event loop (being written: this stub validates nothing
//! and returns the output schema with no rows).

use crate::config::{ConfigError, RunConfig};
use crate::trace::{Column, Table};

/// The outcome of one run: named columnar tables.
#[derive(Debug, Default)]
pub struct RunOutput {
    pub tables: Vec<Table>,
}

impl RunOutput {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

#[derive(Debug)]
pub enum RunError {
    /// Bad input, before any simulation: names the field.
    Config(ConfigError),
    /// An invariant broke during the run (packet conservation, ...).
    Internal(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Config(e) => write!(f, "{e}"),
            RunError::Internal(s) => write!(f, "internal error: {s}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> Self {
        RunError::Config(e)
    }
}

/// Runs one scenario to completion.
pub fn run(cfg: &RunConfig) -> Result<RunOutput, RunError> {
    let summary = Table::new("summary")
        .with("events", Column::U64(vec![0]))
        .with("sim_time_ps", Column::U64(vec![cfg.duration_ps]));
    Ok(RunOutput { tables: vec![summary] })
}

/// Parses a JSON configuration and runs it.
pub fn run_json(json: &str) -> Result<RunOutput, RunError> {
    let cfg = RunConfig::from_json(json)?;
    run(&cfg)
}
