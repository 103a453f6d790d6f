//! Applications: file-transfer tasks and the workloads that start them.
//!
//! A task moves one file from a server to a client. With a control
//! dialogue ([`ftp`]) it is FTP-like, as in the RAFLE paper's testbed
//! (Mussi and Ribeiro, §3): a control connection carries a few small
//! requests and replies, then a data connection carries the file; without
//! one it is a single web-like transfer. A task's completion time runs from
//! its start to the delivery of the file's last byte at the client.
//!
//! A [`workload::Workload`] decides when tasks start and how large their
//! files are: all at once (a file base), in a closed loop that keeps C tasks
//! active, or as a Poisson process with sizes from an empirical CDF
//! ([`cdf::EmpiricalCdf`]). These modules are pure logic driven by the world
//! (`world/tasks.rs`), which opens the connections and reports progress;
//! every random draw comes from a stream named after the workload.

pub mod cdf;
pub mod ftp;
pub mod workload;
