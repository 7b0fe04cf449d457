//! `neardup paragraphs`: flags to [`ParagraphOptions`], the run's cuts to `spans`, its summary
//! to summary.json and text.

use crate::flags::ParagraphsArgs;
use anyhow::Result;
use neardup_clean::{ParagraphOptions, ParagraphSummary, SpanRow};
use neardup_report::Format;
use serde::Serialize;

#[derive(Serialize)]
struct SummaryFile<'a> {
    #[serde(flatten)]
    summary: &'a ParagraphSummary,
    files: &'a [String],
}

pub fn run(args: &ParagraphsArgs, quiet: bool) -> Result<()> {
    let mut options = ParagraphOptions::resolve(
        args.unit.as_deref(),
        args.policy.as_deref(),
        args.max_docs,
        args.min_chars,
    )
    .map_err(|e| crate::flags::usage(format!("--{}", e.0.replacen('_', "-", 1))))?;
    if let Some(m) = args.mem_limit {
        options.mem_limit = m;
    }
    if let Some(t) = &args.tmp_dir {
        options.tmp_dir = t.clone();
    }
    let inputs = crate::inputs::expand_common(&args.common)?;
    let paths: Vec<std::path::PathBuf> = inputs
        .iter()
        .filter_map(|i| i.as_path().map(std::path::Path::to_path_buf))
        .collect();
    neardup_clean::check_inputs(&paths)?;
    let outs = crate::output::Outputs::new(&inputs, args.common.force);
    outs.dir(&args.out)?;
    if let Some(d) = &args.write_clean {
        outs.dir(d)?;
    }
    let format: Format = args.format.into();
    let mut spans = outs.table_writer::<SpanRow>(&args.out, format)?;
    let bar = crate::progress::Bar::new(quiet);
    let summary = neardup_clean::paragraphs(
        &inputs,
        &args.common.pipeline(),
        &options,
        args.write_clean.as_deref().map(|d| (d, outs.guard())),
        &bar,
        |row| {
            spans.write(row).map_err(neardup_clean::CleanError::Write)?;
            Ok(())
        },
    )?;
    let mut files = vec![spans.finish()?.display().to_string()];
    files.extend(summary.inputs.iter().filter_map(|f| f.output.clone()));
    outs.summary(&args.out, &mut files, !args.no_report, |files| {
        serde_json::to_vec_pretty(&SummaryFile {
            summary: &summary,
            files,
        })
    })?;
    outs.end(&args.out, !args.no_report)?;
    if !quiet {
        print!("{}", super::skipped_text(&summary.skipped));
        let s = &summary;
        println!(
            "{} documents ({} HTML, left as they were): {} units of {} characters or more, {} distinct units repeated; cut {} units ({} characters) from {} documents ({})",
            s.documents,
            s.html_documents,
            s.units,
            s.min_chars,
            s.repeated_units,
            s.units_cut,
            s.chars_cut,
            s.inputs.iter().map(|f| f.records_changed).sum::<u64>(),
            match s.policy {
                neardup_clean::Policy::FirstCopy => "every copy but the first".to_string(),
                neardup_clean::Policy::Boilerplate { max_docs } =>
                    format!("every copy of a unit in more than {max_docs} documents"),
            }
        );
        for r in s.most_repeated.iter().take(5) {
            let text: String = r.text.chars().take(70).collect();
            println!("  in {:>6} documents: {:?}", r.docs, text);
        }
        println!(
            "time: {:.2} s counting, {:.2} s cutting{}",
            s.seconds_count,
            s.seconds_apply,
            if s.spilled_bytes > 0 {
                format!("; {} MB spilled to disk", s.spilled_bytes >> 20)
            } else {
                String::new()
            }
        );
        for f in &files {
            println!("wrote {f}");
        }
    }
    Ok(())
}
