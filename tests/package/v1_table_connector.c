/* A connector built for version 1 of the table (before `inquire` and
 * `reserve_request` were appended): it still loads, and the calls its table
 * lacks are forwarded (run_connector_test.sh runs connector_user through it). */
#include <stddef.h>

#include <exacdf_connector.h>

static const exacdf_connector_class v1_table = {
    .version = 1,
    .size = offsetof(exacdf_connector_class, ops) + offsetof(exacdf_file_ops, inquire),
    .name = "v1_table",
};

EXACDF_CONNECTOR_EXPORT const exacdf_connector_class *exacdf_connector_info(void) { return &v1_table; }
