// bne (I)
#pragma once

BRANCH(bne) { return RS1 != RS2; }
