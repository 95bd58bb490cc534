#include <vector>

namespace linalg {

/// A dense row-major matrix.
class Matrix {
public:
    Matrix(int rows, int cols) : rows_(rows), cols_(cols), data_(rows * cols) {}

    double& at(int r, int c) { return data_[r * cols_ + c]; }

    Matrix transpose() const;

private:
    int rows_, cols_;
    std::vector<double> data_;
};

Matrix Matrix::transpose() const {
    Matrix t(cols_, rows_);
    for (int r = 0; r < rows_; ++r)
        for (int c = 0; c < cols_; ++c)
            t.at(c, r) = data_[r * cols_ + c];
    return t;
}

template <typename T>
T dot(const std::vector<T>& a, const std::vector<T>& b) {
    T sum{};
    for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    return sum;
}

struct Point { double x, y; };

}  // namespace linalg
