//! The tree of `kubectl pacto tree` (and `explain --tree`): a table laid out as kubectl-tree lays
//! out its own (NAMESPACE, NAME with the tree drawn in front of `Kind/name`, then the columns),
//! here HEALTH, RULE and MESSAGE. Health words are coloured on a terminal; cells are on one line,
//! escaped for the terminal and cut (`-o json` keeps the whole text); on a terminal the message
//! and rule are wrapped to the width.

use super::pacto::{clip, paint};
use super::{one_line, table};
use crate::pacto::explain::tree::TreeNode;

/// The table of `t`. `width`: the terminal's width, to wrap the RULE and MESSAGE columns to
/// (None: one line per object, however long).
pub fn tree_table(t: &TreeNode, colour: bool, width: Option<usize>) -> String {
    let mut rows = Vec::new();
    row(t, "", "", colour, &mut rows);
    let headers = ["NAMESPACE", "NAME", "HEALTH", "RULE", "MESSAGE"];
    let rows = match width {
        Some(w) => super::fit::fit(&headers, rows, w, &[3, 4]),
        None => rows,
    };
    table(&headers, rows)
}

/// `t`'s row (its name after `branch`), then its children's, drawn under `stem`.
fn row(t: &TreeNode, branch: &str, stem: &str, colour: bool, rows: &mut Vec<Vec<String>>) {
    let mut message = t.message.clone();
    if let Some(n) = &t.note {
        message = if message.is_empty() {
            format!("[{n}]")
        } else {
            format!("{message} [{n}]")
        };
    }
    let name = format!("{branch}{}/{}", t.kind, t.name);
    rows.push(vec![
        clip(&one_line(&t.namespace)),
        clip(&one_line(&name)),
        paint(&clip(&one_line(&t.health)), t.tone, colour),
        clip(&one_line(&t.rule)),
        clip(&one_line(&message)),
    ]);
    let last = t.children.len().saturating_sub(1);
    for (i, c) in t.children.iter().enumerate() {
        let (b, s) = if i == last {
            ("└─", "  ")
        } else {
            ("├─", "│ ")
        };
        row(
            c,
            &format!("{stem}{b}"),
            &format!("{stem}{s}"),
            colour,
            rows,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pacto::explain::Tone;

    fn node(kind: &str, name: &str, children: Vec<TreeNode>) -> TreeNode {
        TreeNode {
            group: String::new(),
            kind: kind.into(),
            namespace: "ns".into(),
            name: name.into(),
            health: "Current".into(),
            rule: "kstatus".into(),
            message: String::new(),
            deciding: false,
            note: None,
            children,
            tone: Tone::Good,
        }
    }

    /// kubectl-tree's drawing: `├─` before every child but the last, `└─` before the last,
    /// `│ ` under a child that has later siblings.
    #[test]
    fn the_tree_is_drawn_in_front_of_the_names() {
        let mut leaf = node("Pacto", "p\u{1b}[31m", vec![]);
        leaf.note = Some("shown above".into());
        let t = node(
            "Kustomization",
            "root",
            vec![
                node("Kustomization", "a", vec![node("Pacto", "x", vec![]), leaf]),
                node("ConfigMap", "b", vec![]),
            ],
        );
        let got = tree_table(&t, false, None);
        let header = got.lines().next().unwrap();
        let (from, to) = (
            header.find("NAME ").unwrap(),
            header.find("HEALTH").unwrap(),
        );
        let names: Vec<String> = got
            .lines()
            .map(|l| {
                let cell: String = l.chars().skip(from).take(to - from).collect();
                cell.trim_end().to_string()
            })
            .collect();
        assert_eq!(
            names,
            [
                "NAME",
                "Kustomization/root",
                "├─Kustomization/a",
                "│ ├─Pacto/x",
                "│ └─Pacto/p\\x1b[31m",
                "└─ConfigMap/b",
            ],
            "{got}"
        );
        assert!(got.contains("[shown above]"), "{got}");
        assert!(!got.contains('\u{1b}'), "{got}");
    }

    /// On a terminal the long rule and message are wrapped to its width; the names stay whole.
    #[test]
    fn on_a_terminal_rule_and_message_fit_the_width() {
        let mut leaf = node("Pacto", "billing", vec![]);
        leaf.rule = "argocd-cm resource.customizations.health.pacto.trianalab.io_Pacto (override pacto.trianalab.io/Pacto)".into();
        leaf.message =
            "contract verdict: NonCompliant: INTERFACE_ABSENT: interface http-api is not served"
                .into();
        let t = node("Application", "shop", vec![leaf]);
        let got = tree_table(&t, false, Some(100));
        assert!(got.lines().all(|l| l.chars().count() <= 100), "{got}");
        assert!(got.lines().count() > 3, "{got}");
        assert!(got.contains("└─Pacto/billing"), "{got}");
        let whole = tree_table(&t, false, None);
        assert_eq!(whole.lines().count(), 3, "{whole}");
    }

    /// On a terminal each health word is painted by its tone: good green, pending yellow, bad
    /// red; names stay plain.
    #[test]
    fn health_words_are_painted_by_their_tone() {
        let mut bad = node("Pacto", "billing", vec![]);
        bad.health = "Failed".into();
        bad.tone = Tone::Bad;
        let mut pending = node("Pacto", "orders", vec![]);
        pending.health = "InProgress".into();
        pending.tone = Tone::Pending;
        let t = node("Kustomization", "apps", vec![bad, pending]);
        let table = tree_table(&t, true, None);
        let painted =
            |word: &str, code: &str| table.contains(&format!("\u{1b}[{code}m{word}\u{1b}[39m"));
        assert!(painted("Failed", "31"), "{table:?}");
        assert!(painted("InProgress", "33"), "{table:?}");
        assert!(painted("Current", "32"), "{table:?}");
        assert!(!table.contains("\u{1b}[31mPacto"), "{table:?}");
    }
}
