"""The dataset registry (data_builders/registry.py): every short name a
config, the CLI or a suite names, declared in its builder package."""

import pytest


# The 62 short names, their TFDS templates, their lexical types (when not
# I-III) and whether they read the user's files, as configs/common.py held
# them before each family declared its own: none may be lost or changed.
TODAY = {
    "spray_load": "blm_spray_load/ALT-ATL_type_{}",
    "spray_load_atl_alt": "blm_spray_load/ATL-ALT_type_{}",
    "spray_load_ctx": "blm_spray_load/ctx_type_{}",
    "spray_load_seq": "blm_spray_load/seq_type_{}",
    "cos_en": "blm_cos_od/cos_en_type_{}",
    "cos_it": "blm_cos_od/cos_it_type_{}",
    "od_en": "blm_cos_od/od_en_type_{}",
    "od_it": "blm_cos_od/od_it_type_{}",
    "cos_en_ctx": "blm_cos_od/cos_en_ctx_type_{}",
    "cos_it_ctx": "blm_cos_od/cos_it_ctx_type_{}",
    "od_en_ctx": "blm_cos_od/od_en_ctx_type_{}",
    "od_it_ctx": "blm_cos_od/od_it_ctx_type_{}",
    "cos_en_seq": "blm_cos_od/cos_en_seq_type_{}",
    "cos_it_seq": "blm_cos_od/cos_it_seq_type_{}",
    "od_en_seq": "blm_cos_od/od_en_seq_type_{}",
    "od_it_seq": "blm_cos_od/od_it_seq_type_{}",
    "agreement_en": "blm_agreement/en_mixed_type_{}",
    "agreement_fr": "blm_agreement/fr_mixed_type_{}",
    "agreement_it": "blm_agreement/it_mixed_type_{}",
    "agreement_ro": "blm_agreement/ro_mixed_type_{}",
    "agreement_en_ctx": "blm_agreement/en_ctx_type_{}",
    "agreement_fr_ctx": "blm_agreement/fr_ctx_type_{}",
    "agreement_it_ctx": "blm_agreement/it_ctx_type_{}",
    "agreement_ro_ctx": "blm_agreement/ro_ctx_type_{}",
    "agreement_en_seq": "blm_agreement/en_seq_type_{}",
    "agreement_fr_seq": "blm_agreement/fr_seq_type_{}",
    "agreement_it_seq": "blm_agreement/it_seq_type_{}",
    "agreement_ro_seq": "blm_agreement/ro_seq_type_{}",
    "cos_plus_en_t2i": "blm_cos_plus/en_T2I_{}",
    "cos_plus_en_i2t": "blm_cos_plus/en_I2T_{}",
    "cos_plus_it_t2i": "blm_cos_plus/it_T2I_{}",
    "cos_plus_it_i2t": "blm_cos_plus/it_I2T_{}",
    "cos_plus_de_case_t2i": "blm_cos_plus/de_case_T2I_{}",
    "cos_plus_de_case_i2t": "blm_cos_plus/de_case_I2T_{}",
    "cos_plus_de_mix_t2i": "blm_cos_plus/de_mix_T2I_{}",
    "cos_plus_de_mix_i2t": "blm_cos_plus/de_mix_I2T_{}",
    "cos_plus_en_ctx": "blm_cos_plus/en_ctx_{}",
    "cos_plus_it_ctx": "blm_cos_plus/it_ctx_{}",
    "cos_plus_de_case_ctx": "blm_cos_plus/de_case_ctx_{}",
    "cos_plus_de_mix_ctx": "blm_cos_plus/de_mix_ctx_{}",
    "spray_load_v0": "blm_spray_load_v0/Template1_type_{}",
    "spray_load_v0_t2": "blm_spray_load_v0/Template2_type_{}",
    "spray_load_v0_ctx": "blm_spray_load_v0/ctx_type_{}",
    "spray_load_v0_t2_ctx": "blm_spray_load_v0/ctx_t2_type_{}",
    "agreement6_fr": "blm_agreement/fr_agrf6_type_{}",
    "agreement6_it": "blm_agreement/it_agrf6_type_{}",
    "agreement6_fr_ctx": "blm_agreement/fr_agrf6_ctx_type_{}",
    "agreement6_it_ctx": "blm_agreement/it_agrf6_ctx_type_{}",
    "sequence_of_tense": "blm_sequence_of_tense/type_{}",
    "sequence_of_tense_ctx": "blm_sequence_of_tense/ctx_type_{}",
    "mixture": "blm_mixture/type_{}",
    "mixture_ctx": "blm_mixture/ctx_type_{}",
    "published_agreement_fr": "blm_published/agreement_fr_type_{}",
    "published_spray_load": "blm_published/spray_load_en_ALT-ATL_type_{}",
    "own_release": "blm_published/folder",
    "own_release_types": "blm_published/type_{}",
    "own_jsonl": "blm_jsonl/folder",
    "own_jsonl_types": "blm_jsonl/type_{}",
    "roll": "blm_roll/type_{}",
    "roll_ctx": "blm_roll/ctx_type_{}",
    "caus_he": "blm_caus_he/synthetic_{}",
    "caus_he_natural": "blm_caus_he/natural_{}",
}
TODAY_TYPES = {
    "caus_he": ('MaxLex',),
    "caus_he_natural": ('MaxLex',),
    "own_release": ('folder',),
    "own_jsonl": ('folder',),
    "cos_plus_en_t2i": ('MinLex', 'MaxLex'),
    "cos_plus_en_i2t": ('MinLex', 'MaxLex'),
    "cos_plus_it_t2i": ('MinLex', 'MaxLex'),
    "cos_plus_it_i2t": ('MinLex', 'MaxLex'),
    "cos_plus_de_case_t2i": ('MinLex', 'MaxLex'),
    "cos_plus_de_case_i2t": ('MinLex', 'MaxLex'),
    "cos_plus_de_mix_t2i": ('MinLex', 'MaxLex'),
    "cos_plus_de_mix_i2t": ('MinLex', 'MaxLex'),
    "cos_plus_en_ctx": ('MinLex', 'MaxLex'),
    "cos_plus_it_ctx": ('MinLex', 'MaxLex'),
    "cos_plus_de_case_ctx": ('MinLex', 'MaxLex'),
    "cos_plus_de_mix_ctx": ('MinLex', 'MaxLex'),
}
TODAY_NEEDS_MANUAL_DIR = {'published_agreement_fr', 'own_jsonl', 'own_release', 'own_release_types', 'published_spray_load', 'caus_he_natural', 'own_jsonl_types'}


def test_configs_common_offers_todays_names_templates_and_types():
  from configs import common
  assert common.DATASETS == TODAY and len(TODAY) == 62
  assert common.DATASET_TYPES == TODAY_TYPES
  assert set(common.NEEDS_MANUAL_DIR) == TODAY_NEEDS_MANUAL_DIR
