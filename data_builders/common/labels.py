"""Answer-label inventories per BLM family, in the papers' names.

The published release uses its own label strings; `PUBLISHED_LABELS` maps
them to the papers' names (000 Figures 3-7, shared samples README). The
first label of each inventory is the correct answer's label.
"""

_SPRAY_LOAD_RULES = ("AGENTACT", "ALT-NP", "ALT-PP", "NOEMB", "LEXPREP",
                     "SSM-1", "SSM-2", "AASSM")
_SPRAY_LOAD_FORMS = ("ACT", "PASS-BY", "PASS-PP-BY", "PASS-PP")
_SPRAY_LOAD_SEQ = (
    ("CORRECT", "WALT")
    + tuple(f"{w}WFORM-{f}" for w in ("", "WALT-") for f in _SPRAY_LOAD_FORMS)
    + tuple(r if b == "CORRECT" else f"{b}-{r}"
            for b in ("CORRECT", "WALT", "WFORM-ACT", "WALT-WFORM-ACT")
            for r in _SPRAY_LOAD_RULES))
# --- spray_load_seq polarity (blm_spray_load 1.3.0) ---
# WPOL: the candidate's polarity (affirmative or negated verb group) differs
# from the correct answer's; it combines like WALT and stands before the
# form (WALT-WPOL-WFORM-PASS-BY, WPOL-AGENTACT). The labels above keep their
# ids; their WPOL counterparts follow, in the same order.
_SPRAY_LOAD_SEQ += tuple(
    "WPOL" if lab == "CORRECT" else
    "WALT-WPOL" + lab[len("WALT"):] if lab.startswith("WALT") else
    "WPOL-" + lab for lab in _SPRAY_LOAD_SEQ)
# --- end spray_load_seq polarity ---

_AGREEMENT_SEQ = (
    "Corr", "WS", "WN1", "WN2", "WS-WN1", "WS-WN2", "WN1-WN2", "WS-WN1-WN2",
    "Coord", "WS-Coord", "WN1-Coord", "WN2-Coord", "WS-WN1-Coord",
    "WS-WN2-Coord", "WN1-WN2-Coord", "WS-WN1-WN2-Coord", "WNA", "WS-WNA",
    "WN1-WNA", "WS-WN1-WNA", "AEV", "WS-AEV", "AEN1", "WS-AEN1", "AEN2",
    "WS-AEN2")


def _with_wemb(label: str) -> str:
  """`label` on the other embedding: WEMB after the number components."""
  parts = [p for p in label.split("-") if p != "Corr"]
  n = sum(p in ("WS", "WN1", "WN2") for p in parts)
  return "-".join(parts[:n] + ["WEMB"] + parts[n:])


FAMILY_LABELS: dict[str, tuple[str, ...]] = {
    # 000 Figure 3 / sec. 3.2.4.
    "agreement": ("Corr", "Coord", "WNA", "WN1", "WN2", "AEV", "AEN1", "AEN2"),
    # Context-necessary agreement (data_builders/blm_agreement/README.md): WN1
    # is the answer of the context whose N1 alternates in the other phase,
    # WN1-<label> that answer with <label>'s rule broken.
    "agreement_ctx": ("Corr", "Coord", "WNA", "WN1", "WN2", "AEV", "AEN1",
                      "AEN2", "WN1-Coord", "WN1-WNA", "WN1-WN2"),
    # Sequence-necessary agreement (data_builders/blm_agreement/README.md):
    # the sixteen well-formed continuations (WS, WN1, WN2: that number
    # differs from Corr's, the verb agreeing; WEMB: the clause is embedded
    # under the matrix clause where Corr is a main clause, or the reverse),
    # then Coord, WNA and the agreement errors, each on the continuation its
    # prefix names. The labels without WEMB first (builder 1.1.0's 26).
    "agreement_seq": _AGREEMENT_SEQ + tuple(
        _with_wemb(lab) for lab in _AGREEMENT_SEQ),
    # 000 Figures 5-7, 004.
    "spray_load": ("CORRECT", "AGENTACT", "ALT-NP", "ALT-PP", "NOEMB",
                   "LEXPREP", "SSM-1", "SSM-2", "AASSM"),
    # Context-necessary spray/load (data_builders/blm_spray_load/README.md):
    # NOALT is the well-formed alternant of sentence 1 (no alternation),
    # NOALT-<rule> that alternant with <rule> broken.
    "spray_load_ctx": ("CORRECT", "AGENTACT", "ALT-NP", "ALT-PP", "NOEMB",
                       "LEXPREP", "SSM-1", "SSM-2", "AASSM", "NOALT",
                       "NOALT-AGENTACT", "NOALT-ALT-NP", "NOALT-ALT-PP",
                       "NOALT-NOEMB", "NOALT-LEXPREP", "NOALT-SSM-1",
                       "NOALT-SSM-2", "NOALT-AASSM"),
    # Sequence-necessary spray/load (data_builders/blm_spray_load/sequence.py):
    # the 16 cells named by what they change relative to the correct one
    # (WALT the alternant, WPOL the polarity, WFORM-<form> the form shown),
    # then the paper's rules on one active base, the base's name before the
    # rule's.
    "spray_load_seq": _SPRAY_LOAD_SEQ,
    # 000 Figures 8/11, 002 Figure 6. Italian adds the two `si` candidates
    # (002 sec. 4.1): SI-PAT ("Pat SI Akt by-NP") and SI-AG ("Ag SI Akt by-NP").
    "cos": ("CORRECT", "I-INT", "ER-PASS", "IER-PASS", "R-TRANS", "IR-TRANS",
            "E-WRBY", "IE-WRBY", "SI-PAT", "SI-AG"),
    "od": ("CORRECT", "I-INT", "ER-PASS", "IER-PASS", "R-TRANS", "IR-TRANS",
           "E-WRBY", "IE-WRBY", "SI-PAT", "SI-AG"),
    # Context-necessary CoS / OD (data_builders/blm_cos_od/README.md): R-<form>
    # is a well-formed form in the wrong place, I-<form> that form with its
    # roles swapped, E-INT / SI-INT the intransitive with rule E / SI broken.
    "cos_ctx": ("CORRECT", "R-TRANS", "R-PASSBY", "R-PASS", "R-INT",
                "I-TRANS", "I-PASSBY", "I-PASS", "I-INT", "E-INT", "SI-INT"),
    "od_ctx": ("CORRECT", "R-TRANS", "R-PASSBY", "R-PASS", "R-INT",
               "I-TRANS", "I-PASSBY", "I-PASS", "I-INT", "E-INT", "SI-INT"),
    # Sequence-necessary CoS / OD (same README): R-<form>-<tail> is a
    # well-formed form with the p-NP (P) or by-NP (BY) that another
    # progression of the family would continue with; I-INT, E-INT, SI-INT the
    # intransitive with rule I / E / SI broken.
    **{f"{c}_seq": ("CORRECT",) + tuple(
        f"R-{f}-{t}" for f in ("TRANS", "PASSBY", "PASS", "INT")
        for t in ("P", "BY")) + ("I-INT", "E-INT", "SI-INT")
       for c in ("cos", "od")},
    # --- blm_cos_plus (002 sec. 4.2, Figure 9) -----------------------------
    # COS+ type B: Grammar breaks the arguments' roles (Ag Verb in T2I, the
    # reverse-role transitive Pa Verb Ag in I2T), Sequence gives the wrong
    # alternant's valency (Pa Verb Ag in T2I, Ag Verb in I2T).
    # The context-necessary configs add Direction: the well-formed alternant
    # the context already shows (data_builders/blm_cos_plus/README.md).
    "cos_plus": ("Correct", "Grammar", "Sequence", "Direction"),
    # --- end blm_cos_plus ---------------------------------------------------
    # Sentence-level chunk data (000 sec. 7): one positive of the sentence's
    # own pattern among negatives of other patterns.
    "sentence_chunks": ("POS", "NEG"),
    # --- Roll verbs and Hebrew binyanim -----------------------------------
    # 000 Figure 10: combinations of paradigm shifts/changes (PS, PC),
    # structure changes (SC), role errors (RR) and role swaps (RS/RC).
    # The context-necessary configs (data_builders/blm_roll/README.md) add
    # D (another agent/location of the scene than the diagnostics name) and
    # the role errors on each base: I (intransitive), T (transitive).
    # ALT-D was built by blm_roll 1.1.0 only; kept so label ids stay put.
    "roll": ("CORRECT", "SCRC", "SC-RR", "RR", "PSC-RS", "PSC-RR", "PC-RR",
             "D", "ALT-D", "I-RR", "I-D-RR", "T-RS", "T-D-RS"),
    # 002 sec. 4.3: one candidate per binyan; a wrong one is named by the
    # binyan it shows instead of the missing one (all Grammar errors).
    "caus_he": ("CORRECT", "PAAL", "NIFAL", "HIFIL", "HUFAL"),
    # --- blm_spray_load_v0, the blm_agreement 6-answer configs,
    # blm_sequence_of_tense and blm_mixture.
    # Spray/load v0 (003 sec. 4.2): Template 1 (Figure 7) answers WPrep, WPP,
    # Adv, WT, WS; Template 2 (Figure 11) answers SLA, WP, Repeat, NoAgent,
    # STA. An instance holds CORRECT plus the five of its template.
    "spray_load_v0": ("CORRECT", "WPrep", "WPP", "Adv", "WT", "WS", "SLA",
                      "WP", "Repeat", "NoAgent", "STA"),
    # Context-necessary v0 (data_builders/blm_spray_load_v0/README.md): WSeq
    # is the other role order's well-formed answer, WSeq-<rule> its errors.
    "spray_load_v0_ctx": ("CORRECT", "WPrep", "WPP", "Adv", "WT", "WS",
                          "WSeq", "WSeq-WPrep", "WSeq-WPP", "WSeq-Adv",
                          "WSeq-WT", "WSeq-WS"),
    # Template 2's (same README): SLA, STA and NoAgent are order-free (the
    # same pattern in both role orders), so only WP and Repeat are mirrored.
    "spray_load_v0_t2_ctx": ("CORRECT", "SLA", "WP", "Repeat", "NoAgent",
                             "STA", "WSeq", "WSeq-WP", "WSeq-Repeat"),
    # BLM-AgrF's 6-candidate answer set (001 Figure 3; 003 Figure 2): AE is
    # the verb agreeing with no noun (000 Figure 3's AEV).
    "agreement6": ("Corr", "Coord", "WNA", "WN1", "WN2", "AE"),
    # Its context-necessary configs: WN1-<label> as in "agreement_ctx".
    "agreement6_ctx": ("Corr", "Coord", "WNA", "WN1", "WN2", "AE",
                       "WN1-Coord", "WN1-WNA", "WN1-WN2"),
    # Italian sequence of tense (000 sec. 3.2.5; our template, see
    # data_builders/blm_sequence_of_tense/README.md): each wrong answer breaks
    # one clause of the context's progression (number, anteriority, reality,
    # person, gender).
    "sequence_of_tense": ("CORRECT", "WNUM", "WANT", "WREAL", "WPER", "WGEN"),
    # Context-necessary sequence of tense (the same README): the product of
    # four well-formed bases (CORRECT, WNUM, WANT, WNUM-WANT) and the errors
    # WREAL, WPER, WGEN on each; a label lists the clauses it breaks
    # relative to CORRECT, its last one relative to the label before it.
    "sequence_of_tense_ctx": (
        "CORRECT", "WREAL", "WPER", "WGEN", "WNUM", "WNUM-WREAL",
        "WNUM-WPER", "WNUM-WGEN", "WANT", "WANT-WREAL", "WANT-WPER",
        "WANT-WGEN", "WNUM-WANT", "WNUM-WANT-WREAL", "WNUM-WANT-WPER",
        "WNUM-WANT-WGEN"),
    # Mixture of sequence of tense and agreement (000 appendix 11.1): answer A
    # is correct, B-F break the rules listed there.
    "mixture": ("A", "B", "C", "D", "E", "F"),
    # Context-necessary mixture (data_builders/blm_mixture/README.md): ANT is
    # A in the other anteriority of its mood (well-formed, correct for the
    # other progression), ANT-<X> that base with X's rules broken; G is C
    # keeping the attractor status.
    "mixture_ctx": ("A", "B", "D", "E", "F", "G", "ANT", "ANT-B", "ANT-D",
                    "ANT-E", "ANT-F", "ANT-G"),
}

# Raw labels of the published release -> papers' names, per family.
PUBLISHED_LABELS: dict[str, dict[str, str]] = {
    "agreement": {
        "True": "Corr",
        "Correct": "Corr",
        "agreement_error_V": "AEV",
        "agreement_error_N1": "AEN1",
        "agreement_error_N2": "AEN2",
        "N1_alter": "WN1",
        "N2_alter": "WN2",
        "coordination": "Coord",
        "mis_num": "WNA",
    },
    "spray_load": {
        "True": "CORRECT",
        "Correct": "CORRECT",
        "CRagentact": "AGENTACT",
        "CRalternation1": "ALT-NP",
        "CRalternation2": "ALT-PP",
        "CRNoEmb": "NOEMB",
        "CRLexPrep": "LEXPREP",
        "CrSSM1": "SSM-1",
        "CrSSM2": "SSM-2",
        "CrAASSM1": "AASSM",
    },
}


def correct_label(family: str) -> str:
  return family_labels(family)[0]


def family_labels(family: str) -> tuple[str, ...]:
  try:
    return FAMILY_LABELS[family]
  except KeyError:
    raise ValueError(
        f"unknown BLM family {family!r}; known: {sorted(FAMILY_LABELS)}"
    ) from None
